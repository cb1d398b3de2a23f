// The catalog and the built retryproof program, as the tests that run real scenarios use
// them. Their targets define RETRYPROOF_CATALOG_DIR and RETRYPROOF_BINARY.
#pragma once

#include <filesystem>
#include <string>

#include "scenarios/model/scenario.hpp"
#include "scenarios/process/process_world.hpp"

namespace retryproof::scenarios::catalog_runs {

inline const std::filesystem::path kCatalog = RETRYPROOF_CATALOG_DIR;
inline const std::string kBinary = RETRYPROOF_BINARY;

// A scenario of the catalog, by its file name.
inline Scenario catalog_scenario(const std::string& file) {
  return load_scenario(kCatalog / file);
}

// `client` as --client names it, run by the built program, with seed 0.
inline RunOptions options_for(const std::string& client) {
  return RunOptions{.client = parse_client_choice(client), .seed = 0, .executable = kBinary};
}

}  // namespace retryproof::scenarios::catalog_runs
