// Where `run` finds its scenario catalog when it is given no paths. An installed program
// (<prefix>/bin/retryproof) finds the catalog installed beside it
// (<prefix>/share/retryproof/catalog); a program still in the build tree it was built in
// falls back to the source tree's catalog. A copied or installed binary never reaches back
// into the source tree: it works the same whether that tree is there or not.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace retryproof::scenarios {

struct CatalogSearch {
  std::optional<std::filesystem::path> found;
  std::vector<std::filesystem::path> looked_in;  // in order, the found one last

  // "no scenario catalog: looked in X (installed beside the program), Y (...); ..."
  std::string not_found_message() const;
};

struct CatalogPlaces {
  std::filesystem::path installed_relative;  // from the program's directory
  std::filesystem::path build_tree;          // where the program was built
  std::filesystem::path source_catalog;      // the build tree's fallback
};

// The places this program was built with.
const CatalogPlaces& built_in_catalog_places();

CatalogSearch find_catalog(const std::filesystem::path& executable, const CatalogPlaces& places);

}  // namespace retryproof::scenarios
