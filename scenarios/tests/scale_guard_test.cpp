// What a time scale cannot decide, on hand-built runs: a retry that meets its requirement
// but came so soon that overhead multiplied by the scale could be all of it; and the scale
// chosen so that no such retry can occur.
#include "scenarios/driver/scale_guard.hpp"

#include <gtest/gtest.h>

#include "scenarios/tests/scale_guard_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using scale_guard_fixture::kScenario;
using scale_guard_fixture::retried;

TEST(ScaleGuard, AtRealTimeEverythingIsDecided) {
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(60), TimeScale()));
}

TEST(ScaleGuard, ARetryThatMayNotHaveWaitedAtAllIsJudgedAtRealTime) {
  // 60 ms meets the 50 ms floor, but at scale 10 a retry without any wait may measure
  // 10 × kLeastRetryOverhead = 100 ms.
  const auto why = undecided_at_scale(kScenario, retried(60), TimeScale(10));
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "seq 2 came 60 ms after the previous attempt ended, which needs 50 ms; at scale 10 a "
            "retry that does not wait at all may measure 100 ms");
}

TEST(ScaleGuard, AGapLongerThanOverheadCanMeasureIsDecidedAtTheScale) {
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(100), TimeScale(10)));
  EXPECT_TRUE(undecided_at_scale(kScenario, retried(100), TimeScale(11)));
}

TEST(ScaleGuard, AFloorSoLowThatRealTimeWouldPassTheRetryTooIsDecidedAtTheScale) {
  // Floor 5 ms (explore draws floors from 1 ms): a retry that did not wait at all and
  // measures 60 ms at scale 10 measures 6 ms at real time, and passes there too.
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(60, 503, {}, 5), TimeScale(10)));
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(50, 503, {}, 5), TimeScale(10)));
  // 40 ms would be 4 ms at real time, short of 5: real time decides.
  EXPECT_TRUE(undecided_at_scale(kScenario, retried(40, 503, {}, 5), TimeScale(10)));
  // No floor at all (min-backoff=0ms declared): every gap passes at every scale.
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(1, 503, {}, 0), TimeScale(10)));
}

TEST(ScaleGuard, AGapShortOfItsRequirementIsATrueFailure) {
  // The scale only lengthens gaps: 30 ms is short of the floor at any scale.
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(30), TimeScale(10)));
}

TEST(ScaleGuard, ARetryAfterIsTheRequirementAfterA429) {
  // 1 s asked for: a retry 1.2 s later cannot be overhead alone at scale 10 ...
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(1200, 429, 1), TimeScale(10)));
  // ... and one 90 ms later is short of it, a true failure, though it meets the floor.
  EXPECT_FALSE(undecided_at_scale(kScenario, retried(90, 429, 1), TimeScale(10)));
  EXPECT_TRUE(undecided_at_scale(kScenario, retried(90, 503), TimeScale(10)));
}

TEST(ScaleFor, TheLargestScaleAtWhichANoWaitRetryStaysShortOfTheFloor) {
  const JudgedPolicy floor_50{.min_backoff = Millis(50)};
  // 10 ms of overhead counted 5 times is 50 ms: at 6 it could reach the floor.
  const ChosenScale five = scale_for(floor_50, TimeScale(10), Millis(10));
  EXPECT_EQ(five.scale, TimeScale(5));
  EXPECT_EQ(five.why,
            "a retry that does not wait at all may take 10 ms here, and above scale 5 it could "
            "measure the 50 ms its verdicts require between attempts");
  // The ceiling is the user's: a scale below it needs no word.
  EXPECT_EQ(scale_for(floor_50, TimeScale(4), Millis(10)), ChosenScale{TimeScale(4)});
  EXPECT_EQ(scale_for(floor_50, TimeScale(10), Millis(5)), ChosenScale{TimeScale(10)});
  // More overhead than floor: real time, said why.
  const ChosenScale real_time = scale_for(floor_50, TimeScale(10), Millis(80));
  EXPECT_EQ(real_time.scale, TimeScale(1));
  EXPECT_TRUE(
      real_time.why.ends_with("above scale 1 it could measure the 50 ms its verdicts "
                              "require between attempts"))
      << real_time.why;
  // Asked for real time: nothing to choose.
  EXPECT_EQ(scale_for(floor_50, TimeScale(), Millis(80)), ChosenScale{});
}

TEST(ScaleFor, WithoutAFloorTheShortestRequirementIsASecondOfRetryAfter) {
  const JudgedPolicy no_floor{.min_backoff = Millis(0)};
  EXPECT_EQ(scale_for(no_floor, TimeScale(100), Millis(10)), ChosenScale{TimeScale(100)});
  EXPECT_EQ(scale_for(no_floor, TimeScale(100), Millis(20)).scale, TimeScale(50));
}

TEST(ScaleFor, AFleetsClientsShareTheCoresSoTheirRetriesMayWaitTheirTurn) {
  EXPECT_EQ(clients_per_core(1, 2), 1);
  EXPECT_EQ(clients_per_core(10, 2), 5);
  EXPECT_EQ(clients_per_core(3, 2), 2);
  EXPECT_EQ(clients_per_core(100, 0), 100);  // a machine that cannot say: one core
  const JudgedPolicy floor_200{.min_backoff = Millis(200)};
  // The ten-client storm on two cores: 50 ms a no-wait retry, scale 4.
  const ChosenScale ten = scale_for(floor_200, TimeScale(10), Millis(10), 5);
  EXPECT_EQ(ten.scale, TimeScale(4));
  EXPECT_EQ(ten.why,
            "a retry that does not wait at all may take 50 ms here (10 ms for one, 5 times: the "
            "fleet's clients share the cores), and above scale 4 it could measure the 200 ms its "
            "verdicts require between attempts");
  // A hundred clients: real time.
  EXPECT_EQ(scale_for(floor_200, TimeScale(10), Millis(10), 50).scale, TimeScale(1));
}

TEST(ScaleFor, LeavesNothingUndecidedWhereTheGuardWouldHaveRunItAgain) {
  // The gaps the guard above found undecided at scale 10 are decided at the scale chosen.
  for (const std::int64_t gap : {60, 99, 100, 150}) {
    const ScenarioResult result = retried(gap);
    const ChosenScale chosen = scale_for(result.policy, TimeScale(10));
    EXPECT_EQ(chosen.scale, TimeScale(5));
    EXPECT_FALSE(undecided_at_scale(kScenario, result, chosen.scale)) << gap;
  }
}

TEST(ScaleFor, TheRunSaysWhichScenariosRanLowerAndWhyOnceForEachReason) {
  const auto ran = [](std::string name, int scale, std::string why) {
    ScenarioResult result = retried(500);
    result.name = std::move(name);
    result.scale = scale;
    result.scale_why = std::move(why);
    return result;
  };
  const ScenarioResult at_ceiling = ran("rate-limited", 10, "");
  EXPECT_EQ(scale_summary({at_ceiling}, TimeScale(10)), "");
  EXPECT_EQ(scale_summary({ran("a", 5, "floor 50"), at_ceiling, ran("b", 2, "floor 20"),
                           ran("c", 5, "floor 50")},
                          TimeScale(10)),
            "time scale 10: 3 of 4 scenarios ran at a lower scale, the largest at which their "
            "verdicts hold. At 5, a, c: floor 50; at 2, b: floor 20");
}

}  // namespace
}  // namespace retryproof::scenarios
