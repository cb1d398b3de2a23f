// A fault schedule: a small random scenario (operations, a FIFO fault script, client
// settings, a rerun) for property tests and `retryproof explore`. Written out as an
// ordinary scenario file, so any schedule that exposes a bug replays with `retryproof run`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/splitmix64.hpp"
#include "provider/fault.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

enum class Rerun {
  none,
  same,             // the first operation runs again, as a redelivered message would
  changed_payload,  // ... with a changed amount: the provider must refuse its key (422)
};

// Whether a schedule varies the client's settings. Only a client that follows
// RETRYPROOF_CLIENT can be judged by settings it was not built with.
enum class Settings { varied, defaults };

struct Schedule {
  int operations = 1;               // "fulfillment:order-1" ... in order
  std::vector<std::string> faults;  // the provider's script, one per new operation
  Settings settings = Settings::varied;
  int attempts = 3;  // the client settings (the scenario defaults unless varied)
  int base_delay_ms = 100;
  int max_delay_ms = 1000;
  int timeout_ms = 1000;
  bool stripe = false;  // the stripe profile instead of baseline
  Rerun rerun = Rerun::none;
  KillPoint kill;  // of the first operation's first invocation, which is then run again

  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// Faults a schedule may draw: the provider's menus (provider/fault.hpp).
using provider::FaultMenu;
using provider::faults_in;

// A schedule drawn from a seeded generator: the same generator state, the same schedule.
Schedule random_schedule(SplitMix64& random, FaultMenu menu, Settings settings = Settings::varied);

// The shortest request timeout a schedule may give its client.
Millis shortest_timeout(Settings settings);

// The schedule as a scenario document (the catalog's format) named `name`. No
// expectations: a client under test must simply pass every verdict.
nlohmann::json to_scenario_json(const Schedule& schedule, const std::string& name);
Scenario to_scenario(const Schedule& schedule, const std::string& name = "schedule");

// Simpler schedules, most promising first, for shrinking a failing one: fewer
// operations, no rerun, fewer faults, simpler faults, a smaller budget.
std::vector<Schedule> simpler_schedules(const Schedule& schedule);

// A size, to compare shrinking results: smaller is simpler.
std::size_t complexity(const Schedule& schedule);

// Greedy shrinking: adopts the first simpler schedule that still `fails`, and starts
// over from it, until none does or `deadline` passes. Returns the smallest failing one.
Schedule shrink(Schedule failing, const std::function<bool(const Schedule&)>& fails,
                std::chrono::steady_clock::time_point deadline);

}  // namespace retryproof::scenarios
