#include "scenarios/model/schedule.hpp"

#include <algorithm>
#include <array>

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

std::string operation_id(int n) {
  return "fulfillment:order-" + std::to_string(n);
}

json payload(int n, int amount) {
  return {{"orderId", "order-" + std::to_string(n)}, {"amount", amount}};
}

// Below the simplest fault: what a shrink step may replace a fault with.
const std::string kSimplest = "none";

// The request timeouts a varied schedule draws from, shortest first.
constexpr std::array<int, 3> kTimeouts{100, 1000, 3000};

}  // namespace

Schedule random_schedule(SplitMix64& random, FaultMenu menu, Settings settings) {
  const auto below = [&](std::uint64_t n) { return static_cast<int>(random.next() % n); };
  const std::vector<std::string> faults = faults_in(menu);
  Schedule schedule;
  schedule.operations = 1 + below(3);
  const int length = below(7);
  for (int i = 0; i < length; ++i)
    schedule.faults.push_back(faults[static_cast<std::size_t>(below(faults.size()))]);
  schedule.attempts = 1 + below(5);
  schedule.base_delay_ms = 2 + below(199);
  schedule.max_delay_ms = schedule.base_delay_ms * (1 + below(8));
  schedule.timeout_ms = kTimeouts[static_cast<std::size_t>(below(kTimeouts.size()))];
  schedule.stripe = below(4) == 0;
  schedule.rerun = static_cast<Rerun>(below(3));
  if (settings == Settings::defaults) {
    // Drawn all the same, so that a seed gives the same faults either way.
    const Schedule defaults;
    schedule.settings = Settings::defaults;
    schedule.attempts = defaults.attempts;
    schedule.base_delay_ms = defaults.base_delay_ms;
    schedule.max_delay_ms = defaults.max_delay_ms;
    schedule.timeout_ms = defaults.timeout_ms;
  }
  return schedule;
}

Millis shortest_timeout(Settings settings) {
  return Millis(settings == Settings::varied ? kTimeouts.front() : Schedule{}.timeout_ms);
}

json to_scenario_json(const Schedule& schedule, const std::string& name) {
  json operations = json::array();
  json invocations = json::array();
  for (int n = 1; n <= schedule.operations; ++n) {
    operations.push_back({{"id", operation_id(n)}, {"payload", payload(n, 100 + n)}});
    invocations.push_back({{"operation", operation_id(n)}});
  }
  if (schedule.kill.armed()) invocations[0]["kill"] = schedule.kill.describe();
  // A killed client is restarted: the rerun of the same operation.
  if (schedule.rerun == Rerun::same || (schedule.kill.armed() && schedule.rerun == Rerun::none)) {
    invocations.push_back({{"operation", operation_id(1)}});
  }
  if (schedule.rerun == Rerun::changed_payload) {
    invocations.push_back({{"operation", operation_id(1)}, {"payload", payload(1, 999)}});
  }
  const auto ms = [](int millis) { return std::to_string(millis) + "ms"; };
  // A schedule draws faults for requests its run may never send (a lookup fault for a client
  // that never looks up, a fault past the last new operation): each is optional, so that a
  // run that did not meet one is judged on what it met, not held inconclusive.
  json faults = json::array();
  for (const std::string& fault : schedule.faults)
    faults.push_back({{"fault", fault}, {"optional", true}});
  return {{"name", name},
          {"description", "A generated fault schedule."},
          {"profile", schedule.stripe ? "stripe" : "baseline"},
          {"plan", {{"faults", std::move(faults)}}},
          {"operations", operations},
          {"invocations", invocations},
          {"client",
           {{"attempts", schedule.attempts},
            {"baseDelay", ms(schedule.base_delay_ms)},
            {"maxDelay", ms(schedule.max_delay_ms)},
            {"timeout", ms(schedule.timeout_ms)}}},
          {"timeLimit", "60s"}};
}

Scenario to_scenario(const Schedule& schedule, const std::string& name) {
  return scenario_from_json(to_scenario_json(schedule, name), "(generated schedule)");
}

std::vector<Schedule> simpler_schedules(const Schedule& schedule) {
  std::vector<Schedule> simpler;
  const auto with = [&](auto change) {
    Schedule candidate = schedule;
    change(candidate);
    if (!(candidate == schedule)) simpler.push_back(candidate);
  };
  with([](Schedule& s) { s.operations = 1; });
  with([](Schedule& s) { s.operations = std::max(1, s.operations - 1); });
  with([](Schedule& s) { s.kill = KillPoint{}; });
  with([](Schedule& s) { s.rerun = Rerun::none; });
  with([](Schedule& s) { s.stripe = false; });
  for (std::size_t i = 0; i < schedule.faults.size(); ++i) {
    with([&](Schedule& s) { s.faults.erase(s.faults.begin() + static_cast<std::ptrdiff_t>(i)); });
  }
  for (std::size_t i = 0; i < schedule.faults.size(); ++i) {
    with([&](Schedule& s) { s.faults[i] = kSimplest; });
  }
  if (schedule.settings == Settings::varied) {
    with([](Schedule& s) { s.attempts = std::max(1, s.attempts - 1); });
  }
  return simpler;
}

std::size_t complexity(const Schedule& schedule) {
  std::size_t size = static_cast<std::size_t>(schedule.operations) + schedule.faults.size() +
                     static_cast<std::size_t>(schedule.attempts) +
                     (schedule.rerun == Rerun::none ? 0 : 1) + (schedule.stripe ? 1 : 0) +
                     (schedule.kill.armed() ? 1 : 0);
  for (const auto& fault : schedule.faults)
    size += fault == kSimplest ? 0 : 1;
  return size;
}

Schedule shrink(Schedule failing, const std::function<bool(const Schedule&)>& fails,
                std::chrono::steady_clock::time_point deadline) {
  for (bool smaller = true; smaller && std::chrono::steady_clock::now() < deadline;) {
    smaller = false;
    for (const Schedule& candidate : simpler_schedules(failing)) {
      if (std::chrono::steady_clock::now() >= deadline) break;
      if (complexity(candidate) < complexity(failing) && fails(candidate)) {
        failing = candidate;
        smaller = true;
        break;
      }
    }
  }
  return failing;
}

}  // namespace retryproof::scenarios
