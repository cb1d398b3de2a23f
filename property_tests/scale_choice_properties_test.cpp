// The scale a scenario runs at (scale_guard.hpp, scale_for) against the guard that defines what
// a scale cannot decide: at the chosen scale no retry, whatever its gap, status and
// Retry-After, is undecided, so a scenario never needs a second run; and one scale higher a
// retry right at the requirement would be, so the choice gives away no speed.
// RC_PARAMS="seed=S" replays a failure.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>

#include "scenarios/tests/scale_guard_fixture.hpp"

namespace retryproof::scenarios {

using scale_guard_fixture::kScenario;
using scale_guard_fixture::retried;

RC_GTEST_PROP(ScaleChoice, NoRetryIsUndecidedAtTheChosenScale, ()) {
  const int floor = *rc::gen::inRange(0, 400);
  const Millis overhead(*rc::gen::inRange(1, 60));
  const TimeScale ceiling(*rc::gen::inRange(1, TimeScale::kMaxFactor + 1));
  const int status = *rc::gen::element(503, 429, 500);
  const int drawn_retry_after = *rc::gen::inRange(-1, 4);  // -1: the answer carried none
  const std::optional<int> retry_after =
      drawn_retry_after < 0 ? std::nullopt : std::optional<int>(drawn_retry_after);
  const ScenarioResult result = retried(*rc::gen::inRange(0, 5000), status, retry_after, floor);
  const ChosenScale chosen = scale_for(result.policy, ceiling, overhead);
  RC_ASSERT(chosen.scale.factor() <= ceiling.factor());
  RC_ASSERT(chosen.why.empty() == (chosen.scale == ceiling));
  const auto why = undecided_at_scale(kScenario, result, chosen.scale, overhead);
  RC_ASSERT(!why);
}

RC_GTEST_PROP(ScaleChoice, OneScaleHigherARetryAtTheRequirementWouldBeUndecided, ()) {
  const int floor = *rc::gen::inRange(0, 400);
  const Millis overhead(*rc::gen::inRange(1, 60));
  const TimeScale ceiling(*rc::gen::inRange(2, TimeScale::kMaxFactor + 1));
  // What the verdicts hold a retry to: the floor, or without one a 429's second.
  const ScenarioResult at_requirement =
      floor > 0 ? retried(floor, 503, {}, floor) : retried(1000, 429, 1, floor);
  const ChosenScale chosen = scale_for(at_requirement.policy, ceiling, overhead);
  RC_PRE(chosen.scale.factor() < ceiling.factor());
  const TimeScale higher(chosen.scale.factor() + 1);
  RC_ASSERT(undecided_at_scale(kScenario, at_requirement, higher, overhead).has_value());
}

}  // namespace retryproof::scenarios
