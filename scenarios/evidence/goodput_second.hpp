// The seconds of a fleet under steady traffic, as `recovery` judges them and the reports draw
// them (goodput.hpp computes them). Apart from goodput.hpp so that ScenarioResult
// (run_result.hpp), which the evidence view includes, can carry them.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "common/millis.hpp"

namespace retryproof::scenarios {

struct GoodputSecond {
  Millis from{0};
  int arrived = 0;    // operations that arrived in it
  int succeeded = 0;  // of those, the ones that ended succeeded
  int creates = 0;    // requests the provider saw in it
  int lookups = 0;
  int shed = 0;                   // refused past capacity
  std::size_t deepest_queue = 0;  // the most requests ahead of one that arrived in it
};

// When the triggers of the scenario's plan (its outages, its capacity's drops) begin and the
// last of them ends.
struct Trigger {
  Millis from{0};
  Millis until{0};
};

// What the reports draw for a traffic scenario: its seconds, its trigger, and how long after
// the trigger ended the fleet's success rate was back (what `recovery` reads off the seconds).
struct TrafficPicture {
  std::vector<GoodputSecond> seconds;
  std::optional<Trigger> trigger;  // none: nothing to recover from
  Millis length{0};                // how long operations arrived
  Millis recover_within{0};        // the traffic's bound on recovering
  // Enough operations arrived before the trigger to know the success rate to come back to.
  bool baseline_known = false;
  double baseline = 1.0;  // that rate, from 0 to 1
  // From the trigger's end to the first second from which every second while traffic lasted
  // was back; empty when none was (or there was no trigger, or no baseline).
  std::optional<Millis> recovered_after;
};

}  // namespace retryproof::scenarios
