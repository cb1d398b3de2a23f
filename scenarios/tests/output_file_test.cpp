#include "scenarios/commands/output_file.hpp"

#include <gtest/gtest.h>

#include "common/temp_dir.hpp"

namespace retryproof::scenarios {
namespace {

TEST(OutputFile, ANewFileInAWritableDirectoryMayBeWrittenAndIsNotCreated) {
  TempDir dir;
  const std::string path = (dir.path() / "counterexample.json").string();
  EXPECT_EQ(unwritable(path), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(path)) << "checking must not leave an empty file";
  EXPECT_EQ(unwritable(dir.write("old.json", "{}").string()), std::nullopt);
}

TEST(OutputFile, SaysWhyAPathCannotBeWritten) {
  TempDir dir;
  EXPECT_EQ(unwritable((dir.path() / "no/such/x.json").string()),
            "its directory " + (dir.path() / "no/such").string() + " does not exist");
  EXPECT_EQ(unwritable(dir.path().string()), "is a directory");
}

}  // namespace
}  // namespace retryproof::scenarios
