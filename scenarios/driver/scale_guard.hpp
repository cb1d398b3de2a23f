// What a time scale cannot decide, and the scale that leaves nothing undecided. At
// --time-scale N everything real between two of a client's attempts (its bookkeeping, a reconnect,
// a busy scheduler) counts N times in scenario time: a retry that did not wait at all, 8 ms after
// the answer on a loaded machine, measures 80 ms at scale 10, past a 50 ms backoff floor. So a
// retry gap that meets its requirement (the backoff floor, or a Retry-After) but lasted less real
// time than such a retry may take proves nothing at the scale (undecided_at_scale), unless even
// such a retry, measured at real time (a Nth of its gap), would meet the requirement there (a floor
// of a few ms). A gap that falls short is a true failure: the scale only
// lengthens gaps. What remains is resolution: a wait short of its requirement by less than (N-1)
// times the real overhead may pass at the scale where it fails at real time
// (docs/compressed_time.md).
//
// A run never finds such a gap: each scenario runs at the scale scale_for chooses before it
// starts, low enough that a retry without any wait cannot reach the shortest wait its verdicts
// require. `--time-scale N` is the ceiling.
#pragma once

#include <optional>
#include <string>

#include "common/time_scale.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// The least real time the guard allows a retry that did not wait at all: a reconnect on a
// busy machine, as the backoff verdict's "at once" has it. The reference client's no-wait
// retry measured 2 to 12 ms here under a load of 8 (state on tmpfs); a scaled run measures
// it again and allows more where it takes longer (retry_overhead.hpp).
inline constexpr Millis kLeastRetryOverhead{10};

// Why `result`, judged at `scale`, must be judged at real time instead (naming the retry),
// or nothing when every time-based verdict is decided at the scale. `overhead` is the real
// time a retry that does not wait at all may take here.
std::optional<std::string> undecided_at_scale(const Scenario& scenario,
                                              const ScenarioResult& result, TimeScale scale,
                                              Millis overhead = kLeastRetryOverhead);

// The scale a scenario runs at, and why when that is below the ceiling.
struct ChosenScale {
  TimeScale scale;
  std::string why = {};  // empty at the ceiling; "a retry that does not wait at all may ..."

  friend bool operator==(const ChosenScale&, const ChosenScale&) = default;
};

// How many of a fleet's clients share each of the machine's `cores`: a retry that does not
// wait at all may wait for that many clients' turns. 1 for a single client.
int clients_per_core(int concurrency, unsigned cores);

// The largest scale at most `ceiling` at which undecided_at_scale finds nothing, whatever the
// client does: overhead × N within the shortest wait the verdicts can require of `policy`'s
// client, its backoff floor (or, with no floor, a 429's Retry-After: a whole second at least).
// `overhead` is one client's; a fleet's is `sharing` (clients_per_core) times as long.
ChosenScale scale_for(const JudgedPolicy& policy, TimeScale ceiling,
                      Millis overhead = kLeastRetryOverhead, int sharing = 1);

// One line on the scenarios of a run that ran below the `ceiling` asked for, or empty.
std::string scale_summary(const std::vector<ScenarioResult>& results, TimeScale ceiling);

}  // namespace retryproof::scenarios
