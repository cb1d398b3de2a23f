// How long a retry that does not wait at all takes on this machine, now: what the scale guard
// (scale_guard.hpp) must allow for, since at --time-scale N that real overhead counts N times
// in scenario time. A constant would be wrong on a machine busier than the one it was picked
// on: there a no-wait retry of 15 ms measures 150 ms at scale 10, past a 50 ms backoff floor,
// and would pass the backoff verdict. So a scaled run measures it first, at real time: the
// no-backoff mutant through three 503s (its gaps are nothing but overhead), and for an
// external client also what the clock probe saw its overhead cost at the scale.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/millis.hpp"
#include "provider/journal.hpp"
#include "scenarios/driver/scale_guard.hpp"
#include "scenarios/process/clock_probe.hpp"
#include "scenarios/process/process_world.hpp"

namespace retryproof::scenarios {

// How many times the longest measured overhead the guard allows. The longest of the three
// is nearly always the first, the process's first retry, cold (its code not yet paged in):
// already a long one; twice it covers a load that doubles during the run. More would send
// most retries of a loaded machine back to real time, and the scale would buy nothing.
inline constexpr int kOverheadMargin = 2;

// Each gap between a create's answer (its arrival, when it was not answered) and the next
// create in `journal`, in order: a client's waits, plus its overhead, between attempts.
std::vector<Millis> retry_gaps(const std::vector<provider::JournalEntry>& journal);
// The longest of them, or nothing when there was no retry.
std::optional<Millis> longest_retry_gap(const std::vector<provider::JournalEntry>& journal);

// What the clock probe shows of the probed client's overhead per retry: its waits at the
// scale less those at real time, over the N - 1 extra times that overhead counted and the
// probe's two retries. Nothing when the probe did not measure both.
std::optional<Millis> probed_overhead(const ClockProbe& probe);

// The guard's allowance from what was measured: at least kLeastRetryOverhead (scale_guard.hpp),
// else
// kOverheadMargin times the longest measured.
Millis allowed_overhead(std::optional<Millis> measured);

// Runs the no-backoff mutant at real time through three 503s and a 201, with the run's
// executable, and returns its longest gap: the overhead of a no-wait retry here. Nothing
// when it did not retry (it could not run).
std::optional<Millis> measure_no_wait_retry(const RunOptions& options);

// The sentence reports print: "time scale 10: a retry that does not wait at all took up to 4
// ms here; the scale guard allows 10 ms for one (10 at least, 2 times the longest measured)".
std::string describe_overhead(TimeScale scale, std::optional<Millis> measured, Millis allowed);

}  // namespace retryproof::scenarios
