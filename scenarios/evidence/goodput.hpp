// What a fleet under steady traffic did for its users, second by second: operations that
// arrived, and how many of them succeeded (goodput), beside the requests the provider saw and
// its queue. `recovery` judges a traffic scenario by it: after its trigger ends, the success
// rate must come back to what it was before (a fleet whose retries keep the provider past its
// capacity after the trigger is a metastable failure: Bronson et al., HotOS 2021; Huang et al.,
// OSDI 2022). Pure functions of the evidence, so both worlds are judged alike.
#pragma once

#include <optional>
#include <vector>

#include "common/millis.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/evidence/goodput_second.hpp"

namespace retryproof::scenarios {

inline constexpr Millis kGoodputBucket{1000};
// Recovered: every later second's success rate is at least this share of the rate before.
inline constexpr double kRecoveredShare = 0.9;
// Fewer operations than this before the trigger cannot say what its success rate was.
inline constexpr int kLeastBaseline = 20;

// Every second from the first arrival to the last request, by the provider's clock.
std::vector<GoodputSecond> goodput_by_second(const Evidence& evidence);

// When the triggers of the scenario's plan begin and the last of them ends; nothing when it
// has none.
std::optional<Trigger> trigger_of(const Scenario& scenario);

// What `recovery` reads off the seconds: the success rate of the operations that arrived in
// the whole seconds before the trigger, and the first second at or after its end from which
// every second before `length` is back to kRecoveredShare of that rate (a second in which
// nothing arrived counts as back).
struct GoodputRecovery {
  int before = 0;
  double baseline = 1.0;
  std::optional<Millis> recovered;
};
GoodputRecovery recovery_of(const std::vector<GoodputSecond>& seconds, const Trigger& trigger,
                            Millis length);

// The picture of a traffic scenario's run for the reports (ScenarioResult::traffic).
TrafficPicture traffic_picture(const Evidence& evidence);

}  // namespace retryproof::scenarios
