// The machine's share of a run. The process world measures the harness's own lateness while a
// scenario runs (scenarios/process/stall_watch.hpp): a failure that rests on time (its row in
// verdict_table() says Rests::on_time) in a window the harness was stalled in could be the
// machine's doing — a stalled provider answers late and stamps late, a stalled harness starts
// clients late — and is inconclusive, with the stall it held; a failure that rests on order
// (a second job, a re-send before a lookup) stands. So do unmet expectations a late machine can
// cause (a final outcome, fewer jobs than expected), and never those it cannot (more jobs).
#pragma once

#include <optional>
#include <vector>

#include "scenarios/driver/run_result.hpp"

namespace retryproof::scenarios {

// How late the harness must have been for what it measured to be in doubt, in real time: a
// scheduler hands a runnable thread the CPU within a few milliseconds on a busy 2-core machine
// (load 4), and well within this at load 10; a timer 100 ms late means the harness lost many
// time slices in a row — the machine was starved or stopped. The smallest waits verdicts judge
// (a 50 ms backoff floor) are shorter, and a stall that long could have made or hidden them.
inline constexpr std::chrono::milliseconds kStallThreshold{100};
// Past this, the harness says so on standard error the moment it notices: it was stopped.
inline constexpr std::chrono::milliseconds kStoppedThreshold{1000};
// A window is in doubt when its stalls add up to this share of it at least: a 150 ms stall
// cannot explain a client still running at the end of a 20 s limit, but a machine starved
// for a tenth of the window, or stopped for a second of it, can.
inline constexpr int kStalledShareOfWindow = 10;  // one part in ten

// How the stalls bear on [from, until] on the provider's clock: the time they overlap it in
// all, and the longest of them; nothing when they do not add up to a tenth of it.
struct StallsWithin {
  Millis total{0};  // of the window
  int count = 0;
  const Stall* longest = nullptr;
};
std::optional<StallsWithin> stalled_within(const std::vector<Stall>& stalls, Millis from,
                                           Millis until);

// Makes each failed verdict that rests on time inconclusive where its window was stalled;
// its window is the span of the entries it cites, or the whole run when it cites none.
void account_for_stalls(std::vector<Verdict>& verdicts, const ScenarioResult& result);

// The same for the unmet expectations a late machine can cause: they move to
// result.inconclusive, each with the stall.
void account_for_stalls_in_expectations(ScenarioResult& result);

}  // namespace retryproof::scenarios
