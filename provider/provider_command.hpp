// `retryproof provider`: the misbehaving provider as a long-running process.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "provider/provider_core.hpp"

namespace retryproof::provider {

// Adds the subcommand to `app`; when it runs, its exit status goes to `exit_code`.
// `endpoints` are /_test/ endpoints of layers above the core (GET /_test/verdicts).
void add_provider_command(CLI::App& app, int& exit_code,
                          std::vector<ControlEndpoint> endpoints = {});

}  // namespace retryproof::provider
