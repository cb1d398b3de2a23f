// What a time scale cannot decide, on hand-built runs: a retry that meets its requirement
// but came so soon that overhead multiplied by the scale could be all of it.
#include "scenarios/driver/scale_guard.hpp"

#include <gtest/gtest.h>

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;
using provider::RequestKind;

const Scenario kScenario = scenario_from_json(
    {{"name", "guarded"}, {"operations", {{{"id", "op"}, {"payload", {{"orderId", "o"}}}}}}},
    "scale guard test");

// Two creates of one invocation: a first answered with `status` at 1000 ms (carrying
// `retry_after` seconds), and a retry `gap` ms after it. Floor 50 ms unless given.
ScenarioResult retried(std::int64_t gap, int status = 503, std::optional<int> retry_after = {},
                       std::int64_t floor = 50) {
  ScenarioResult result;
  result.policy = JudgedPolicy{.min_backoff = Millis(floor), .timeout = Millis(1000)};
  JournalEntry first{.seq = 1,
                     .at = Millis(1000),
                     .method = "POST",
                     .path = "/jobs",
                     .kind = RequestKind::create,
                     .answered_at = Millis(1000),
                     .status = status,
                     .retry_after_seconds = retry_after};
  first.key = "op";
  JournalEntry second = first;
  second.seq = 2;
  second.at = second.answered_at.value() + Millis(gap);
  second.answered_at = second.at;
  second.status = 201;
  result.journal = {first, second};
  result.invocations = {InvocationResult{.operation = "op", .first_seq = 1, .last_seq = 2}};
  return result;
}

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

TEST(ScaleGuard, SaysWhichScenariosWereJudgedAtRealTime) {
  ScenarioResult rejudged = retried(60);
  rejudged.name = "fail-before-commit";
  rejudged.judged_at_real_time = "seq 2 came 60 ms ...";
  ScenarioResult decided = retried(500);
  decided.name = "rate-limited";
  EXPECT_EQ(real_time_summary({decided}, TimeScale(10)), "");
  EXPECT_EQ(real_time_summary({rejudged, decided}, TimeScale(10)),
            "time scale 10: 1 of 2 scenarios judged at real time instead: a retry there came so "
            "soon that, with real overhead counted 10 times, it might not have waited at all "
            "(fail-before-commit; fail-before-commit: seq 2 came 60 ms ...)");
}

}  // namespace
}  // namespace retryproof::scenarios
