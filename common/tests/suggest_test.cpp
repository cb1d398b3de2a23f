#include "common/suggest.hpp"

#include <gtest/gtest.h>

namespace retryproof {
namespace {

const std::vector<std::string> kFields = {"attempts", "baseDelay", "maxDelay", "timeout"};

TEST(Suggest, TheClosestKnownWordToATypo) {
  EXPECT_EQ(closest("atempts", kFields), "attempts");
  EXPECT_EQ(closest("timout", kFields), "timeout");
  EXPECT_EQ(closest("BASEDELAY", kFields), "baseDelay");  // case does not count
  EXPECT_EQ(did_you_mean("tmeout", kFields), " (did you mean \"timeout\"?)");
  EXPECT_EQ(closest("lookup", {"lookup-first", "same-key-retry"}), "lookup-first");  // cut short
  EXPECT_EQ(closest("max", {"maxDelay", "maxBody"}), std::nullopt);  // two words begin so
}

TEST(Suggest, TwoLettersSwappedAreOneSlip) {
  EXPECT_EQ(closest("rnu", {"provider", "run", "explore", "client", "demo"}), "run");
  EXPECT_EQ(closest("timeuot", kFields), "timeout");
}

TEST(Suggest, NothingWhenNoWordIsClose) {
  EXPECT_EQ(closest("colour", kFields), std::nullopt);
  EXPECT_EQ(did_you_mean("x", kFields), "");
  EXPECT_EQ(closest("anything", {}), std::nullopt);
}

}  // namespace
}  // namespace retryproof
