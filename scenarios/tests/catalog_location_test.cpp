#include "scenarios/commands/catalog_location.hpp"

#include <gtest/gtest.h>

#include "common/temp_dir.hpp"

namespace retryproof::scenarios {
namespace {

namespace fs = std::filesystem;

// A prefix with bin/ and share/retryproof/catalog, a build tree and a source catalog.
class CatalogLocation : public ::testing::Test {
 protected:
  CatalogLocation() {
    fs::create_directories(root_.path() / "prefix/bin");
    fs::create_directories(root_.path() / "prefix/share/retryproof/catalog");
    fs::create_directories(root_.path() / "build/scenarios");
    fs::create_directories(root_.path() / "source/catalog");
    places_ = {"../share/retryproof/catalog", root_.path() / "build",
               root_.path() / "source/catalog"};
  }
  fs::path at(const std::string& relative) const { return root_.path() / relative; }

  TempDir root_;
  CatalogPlaces places_;
};

TEST_F(CatalogLocation, AnInstalledProgramFindsTheCatalogBesideIt) {
  const CatalogSearch search = find_catalog(at("prefix/bin/retryproof"), places_);
  ASSERT_TRUE(search.found);
  EXPECT_EQ(*search.found, fs::canonical(at("prefix/share/retryproof/catalog")));
}

TEST_F(CatalogLocation, AProgramInItsBuildTreeFallsBackToTheSourceCatalog) {
  const CatalogSearch search = find_catalog(at("build/scenarios/retryproof"), places_);
  ASSERT_TRUE(search.found);
  EXPECT_EQ(*search.found, at("source/catalog"));
  EXPECT_EQ(search.looked_in.size(), 2u);
}

TEST_F(CatalogLocation, AProgramElsewhereNeverReachesForTheSourceTree) {
  fs::create_directories(at("copy"));
  const CatalogSearch search = find_catalog(at("copy/retryproof"), places_);
  EXPECT_FALSE(search.found);
  ASSERT_EQ(search.looked_in.size(), 1u);
  const std::string message = search.not_found_message();
  EXPECT_NE(
      message.find("looked in " + (at("copy").parent_path() / "share/retryproof/catalog").string()),
      std::string::npos)
      << message;
  EXPECT_EQ(message.find("source"), std::string::npos) << message;
}

TEST_F(CatalogLocation, ABuildTreeWithoutItsSourceSaysWhereItLookedForBoth) {
  fs::remove(at("source/catalog"));
  const CatalogSearch search = find_catalog(at("build/scenarios/retryproof"), places_);
  EXPECT_FALSE(search.found);
  const std::string message = search.not_found_message();
  EXPECT_NE(message.find(at("source/catalog").string() + " (the source tree's, for a build tree)"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace retryproof::scenarios
