// Whether an external client can be judged at the scale of `--time-scale N`. It cannot be
// asked, so it is watched: one short scenario (two 503s, then a 201, with the tightest
// timeout of the run) runs at real time and at the scale, from the same seed.
//
// - A client whose clock follows the scale waits as long in scenario time at both; one that
//   runs on the real clock (a statically linked program, or one that reads the clock by
//   system calls, escapes libfaketime) waits N times as long at the scale, and would be
//   misjudged there: its timeouts would outlast the provider's holds and its runs the time
//   limits.
// - A client that follows it must still do the same at both: the same requests, answers and
//   outcome. One whose own work does not fit its scaled timeout (Node's first fetch loads
//   its HTTP client: 100 ms on a busy machine, a 1 s timeout at scale 10) times out where
//   it would not, and does something else.
//
// Either way it is judged at real time instead.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/time_scale.hpp"
#include "scenarios/process/process_world.hpp"

namespace retryproof::scenarios {

struct ClockProbe {
  enum class Finding {
    follows,
    ignores,
    behaves_differently,  // follows, perhaps, but does other things at the scale
    unknown,              // did not wait between creates, so its clock did not show
  };
  Finding finding = Finding::unknown;
  TimeScale scale;
  // Its waits between the probe's creates, summed, in scenario time; empty when it did not
  // retry at that scale.
  std::optional<Millis> waited_at_real_time;
  std::optional<Millis> waited_at_scale;
  // What it did at each, when that differs: "POST 503, POST 503, POST 201, succeeded".
  std::string did_at_real_time;
  std::string did_at_scale;

  std::string finding_text() const;  // "the client follows the scaled clock (...)"
  std::string describe() const;      // one sentence for the report, "time scale 10: ..."
};

// The finding on what the two runs measured: the client ignores the scale when it waited
// at least sqrt(N) times as long at the scale (N for a client on the real clock, about 1 for
// one that follows); unknown when it did not wait at real time.
ClockProbe::Finding judge_clock(std::optional<Millis> at_real_time, std::optional<Millis> at_scale,
                                TimeScale scale);

// Runs the probe for options.client at options.time_scale, with `timeout` as the client's
// request timeout. Costs one real-time run of a short scenario: the client's start and its
// two backoff waits.
ClockProbe probe_client_clock(const RunOptions& options, Millis timeout);

// The time scale a run uses: the one asked for, except for an external client the probe
// does not find following it and doing the same. One that follows it but does other things
// (its own work does not fit the scaled timeouts) is probed again at half the scale, down to
// 2, and runs at the largest where it does the same; any other at real time.
struct SettledScale {
  TimeScale asked;
  TimeScale used;
  std::optional<ClockProbe> probe;  // when the client was probed: an external one, scaled
  // The probes at higher scales, from the one asked for down, where the client did other
  // things than at real time; `probe` is then at half the last of them.
  std::vector<ClockProbe> too_fast = {};
  // What the scale guard allows a retry that does not wait at all (RunOptions::retry_overhead),
  // measured before the run at the scale (retry_overhead.hpp), and the sentence that says
  // so; the least allowance and no sentence at real time.
  Millis retry_overhead = kLeastRetryOverhead;
  std::string overhead_note = {};

  std::string probe_text() const;  // the probes' sentence for the report; empty: none
};

// Settles it for options.client at options.time_scale, and measures the overhead of a retry
// that does not wait at all when the run is scaled. `tightest_timeout` is the shortest
// request timeout the run gives its client. Throws std::runtime_error when the probe cannot
// run (libfaketime missing).
SettledScale settle_time_scale(const RunOptions& options, Millis tightest_timeout);

// The probe's finding as the JSON report names it: "follows", "ignores",
// "behaves-differently", "unknown".
std::string to_string(ClockProbe::Finding finding);

}  // namespace retryproof::scenarios
