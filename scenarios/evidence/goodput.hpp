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

namespace retryproof::scenarios {

inline constexpr Millis kGoodputBucket{1000};
// Recovered: every later second's success rate is at least this share of the rate before.
inline constexpr double kRecoveredShare = 0.9;
// Fewer operations than this before the trigger cannot say what its success rate was.
inline constexpr int kLeastBaseline = 20;

struct GoodputSecond {
  Millis from{0};
  int arrived = 0;    // operations that arrived in it
  int succeeded = 0;  // of those, the ones that ended succeeded
  int creates = 0;    // requests the provider saw in it
  int lookups = 0;
  int shed = 0;                   // refused past capacity
  std::size_t deepest_queue = 0;  // the most requests ahead of one that arrived in it
};

// Every second from the first arrival to the last request, by the provider's clock.
std::vector<GoodputSecond> goodput_by_second(const Evidence& evidence);

// When the triggers of the scenario's plan (its outages, its capacity's drops) begin and the
// last of them ends; nothing when it has none.
struct Trigger {
  Millis from{0};
  Millis until{0};
};
std::optional<Trigger> trigger_of(const Scenario& scenario);

}  // namespace retryproof::scenarios
