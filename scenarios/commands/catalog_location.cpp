#include "scenarios/commands/catalog_location.hpp"

#include <algorithm>
#include <system_error>

namespace retryproof::scenarios {
namespace {

namespace fs = std::filesystem;

fs::path canonical_or_same(const fs::path& path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(path, error);
  return error ? path.lexically_normal() : canonical;
}

bool is_inside(const fs::path& path, const fs::path& directory) {
  const fs::path inner = canonical_or_same(path);
  const fs::path outer = canonical_or_same(directory);
  const auto outer_end =
      std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first;
  // A directory spelled with a trailing slash ends in an empty component.
  return outer_end == outer.end() || (std::next(outer_end) == outer.end() && outer_end->empty());
}

bool is_existing_directory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

}  // namespace

const CatalogPlaces& built_in_catalog_places() {
  static const CatalogPlaces places{RETRYPROOF_INSTALLED_CATALOG, RETRYPROOF_BUILD_DIR,
                                    RETRYPROOF_CATALOG_DIR};
  return places;
}

CatalogSearch find_catalog(const fs::path& executable, const CatalogPlaces& places) {
  CatalogSearch search;
  const fs::path installed =
      canonical_or_same(executable.parent_path() / places.installed_relative);
  search.looked_in.push_back(installed);
  if (is_existing_directory(installed)) {
    search.found = installed;
    return search;
  }
  if (!places.build_tree.empty() && is_inside(executable, places.build_tree)) {
    search.looked_in.push_back(places.source_catalog);
    if (is_existing_directory(places.source_catalog)) search.found = places.source_catalog;
  }
  return search;
}

std::string CatalogSearch::not_found_message() const {
  std::string text = "no scenario catalog found: looked in " + looked_in.front().string() +
                     " (installed beside the program)";
  if (looked_in.size() > 1) {
    text += " and " + looked_in[1].string() + " (the source tree's, for a build tree)";
  }
  return text + "; reinstall retryproof, or name scenario files or directories";
}

}  // namespace retryproof::scenarios
