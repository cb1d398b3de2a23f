// A traffic scenario's seconds in each report format (ScenarioResult::traffic): offered
// operations, goodput, the creates and lookups the provider saw, what it shed and its queue,
// with the trigger marked, and the time to recover as a number, as `recovery` reads it. A
// sparkline a series in the terminal, Mermaid xycharts in Markdown, every second in JSON
// (which the HTML report draws: ui/assets/report.js). Beside the load over time
// (load_reports.hpp), which every fleet has.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "scenarios/driver/run_result.hpp"

namespace retryproof::scenarios::reports {

// Whole seconds drawn as one character (terminal) or one x-axis label (Markdown).
struct TrafficColumn {
  Millis from{0};
  Millis until{0};
  int arrived = 0;
  int succeeded = 0;
  int creates = 0;
  int lookups = 0;
  int shed = 0;
  std::size_t deepest_queue = 0;
  bool in_trigger = false;  // it overlaps the trigger
};

// A terminal line and a readable x-axis: at most this many columns.
constexpr std::size_t kMostTrafficColumns = 60;

// The seconds, `seconds_each` to a column (the fewest that fit `most` columns): counts
// summed, the queue its deepest.
struct TrafficColumns {
  int seconds_each = 1;
  std::vector<TrafficColumn> columns;
};
TrafficColumns traffic_columns(const TrafficPicture& picture,
                               std::size_t most = kMostTrafficColumns);

// "time to recover: 6000 ms after the trigger ended at +15000ms (...)", "time to recover: did
// not recover while traffic lasted (...)"; empty without a trigger.
std::string recovery_text(const TrafficPicture& picture);

// Its lines in a scenario's terminal block, indented by two spaces; none without traffic.
std::vector<std::string> traffic_terminal_lines(const ScenarioResult& result);

// A line for each kill under traffic that cut operations short: "killed: instance 3 at
// +10000ms, 11 operations cut short (invocations 273, 283, ... and 6 more), each run again on
// its next process (...)". Unindented; none without such a kill.
std::vector<std::string> kill_lines(const ScenarioResult& result);

// Its Markdown section ("### NAME: traffic over time"); nothing without traffic.
void write_traffic_markdown(std::ostream& out, const ScenarioResult& result);

// {"secondMs", "lengthMs", "recoverWithinMs", "trigger": {"fromMs", "untilMs"} or null,
//  "baseline": 0 to 1 or null, "recoveredAfterMs": ms or null, "recovery": "recovered",
//  "not recovered", "could not tell" or "no trigger", "recoveryText": recovery_text, "seconds":
//  [{"startMs", "offered", "succeeded", "creates", "lookups", "shed", "queueDepth", "inTrigger"}]}
nlohmann::json traffic_json(const TrafficPicture& picture);

}  // namespace retryproof::scenarios::reports
