// Explore's seed space: a schedule is a function of its seed alone, and shards split the
// seeds of one explore into disjoint parts that together are all of them.
#include "scenarios/model/seed_space.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace retryproof::scenarios {
namespace {

TEST(SeedSpace, ShardsAreDisjointAndTogetherAreTheUnshardedRun) {
  constexpr std::uint64_t kBase = 1000;
  constexpr int kRuns = 7;
  for (int count = 1; count <= 6; ++count) {
    std::set<std::uint64_t> seen;
    for (int index = 1; index <= count; ++index) {
      for (int run = 0; run < kRuns; ++run) {
        const std::uint64_t seed = Shard{index, count}.schedule_seed(kBase, run);
        EXPECT_TRUE(seen.insert(seed).second)
            << "seed " << seed << " tried twice, again by shard " << index << "/" << count;
      }
    }
    // One explore of count×runs schedules tries exactly these.
    std::set<std::uint64_t> unsharded;
    for (int run = 0; run < count * kRuns; ++run)
      unsharded.insert(Shard{}.schedule_seed(kBase, run));
    EXPECT_EQ(seen, unsharded) << "shards of " << count;
  }
}

TEST(SeedSpace, AScheduleIsAFunctionOfItsSeedAlone) {
  // Whichever shard and base found it, the seed gives the schedule back: what
  // `explore --seed S --runs 1` (shard 1/1, run 0) tries.
  const std::uint64_t seed = Shard{3, 4}.schedule_seed(40, 5);
  EXPECT_EQ(seed, 40u + 2u + 4u * 5u);
  EXPECT_EQ(Shard{}.schedule_seed(seed, 0), seed);
  for (const Settings settings : {Settings::varied, Settings::defaults}) {
    EXPECT_EQ(schedule_of_seed(seed, FaultMenu::all, settings),
              schedule_of_seed(seed, FaultMenu::all, settings));
  }
  // And neighbouring seeds are different schedules.
  std::set<std::string> distinct;
  for (std::uint64_t s = 0; s < 50; ++s)
    distinct.insert(
        to_scenario_json(schedule_of_seed(s, FaultMenu::all, Settings::varied), "x").dump());
  EXPECT_GT(distinct.size(), 40u);
}

TEST(SeedSpace, ParsesShardsAndSaysWhatIsWrongWithABadOne) {
  const Shard shard = parse_shard("2/5");
  EXPECT_EQ(shard.index, 2);
  EXPECT_EQ(shard.count, 5);
  EXPECT_EQ(shard.describe(), "2/5");
  const auto message = [](const std::string& text) {
    try {
      parse_shard(text);
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("3/2"), "--shard 3/2: shard 3 of 2 does not exist; K runs from 1 to 2");
  for (const char* bad : {"0/2", "2", "1/0", "a/b", "1/2/3", "-1/2", "1/", " 1/2"}) {
    EXPECT_NE(message(bad).find("write K/N"), std::string::npos) << bad << ": " << message(bad);
  }
}

}  // namespace
}  // namespace retryproof::scenarios
