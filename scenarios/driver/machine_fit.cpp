#include "scenarios/driver/machine_fit.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios {
namespace {

// The share of a fleet whose clients must have started before its outage ends: fewer, and
// the outage tests too few of them (a quarter of the hundred-client storm is 25 clients, more
// than retry-spread's smallest wave), beside clients the machine starved.
constexpr double kFleetThatMustMeetTheOutage = 0.25;

std::string seconds(double millis) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", millis / 1000);
  return text;
}

std::string count(int cores) {
  return std::to_string(cores) + (cores == 1 ? " core" : " cores");
}

}  // namespace

void ClientCosts::add(const ScenarioResult& result) {
  // A fleet's processes cost more each than one alone (a Node client's 0.26 s in a storm
  // against 0.12-0.15 s alone): measured there, one storm would refuse the next.
  if (result.concurrency > 1) return;
  std::lock_guard lock(mutex_);
  for (const InvocationResult& invocation : result.invocations) {
    // A process killed or stopped at the limit did not show what a whole run costs.
    if (invocation.cpu && !invocation.killed && !invocation.timed_out)
      samples_[result.client].push_back(*invocation.cpu);
  }
}

std::optional<Millis> ClientCosts::per_process(const std::string& client) const {
  std::lock_guard lock(mutex_);
  const auto found = samples_.find(client);
  if (found == samples_.end() || found->second.empty()) return std::nullopt;
  std::vector<Millis> sorted = found->second;
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return *middle;
}

std::string fleet_too_heavy(const Scenario& scenario, Millis per_process, int cores, int scale) {
  const int clients = scenario.fleet.concurrency;
  if (!scenario.fleet.is_fleet() || scenario.traffic) return "";
  const std::vector<OutageWindow> outages = outage_windows(scenario);
  if (outages.empty()) return "";
  Millis last_end{0};
  for (const OutageWindow& outage : outages)
    last_end = std::max(last_end, outage.until);
  // In real time: the provider's clock runs `scale` times faster.
  const double window = static_cast<double>(last_end.count()) / std::max(1, scale);
  const double cpu = static_cast<double>(clients) * static_cast<double>(per_process.count());
  // Processes that start together share the cores, so the n-th of N is running after about
  // n/N of their CPU time (measured: a hundred Node clients' median start was half of it).
  const double share_started = cpu * kFleetThatMustMeetTheOutage / std::max(1, cores);
  if (share_started <= window) return "";
  const int enough =
      static_cast<int>(std::ceil(cpu * kFleetThatMustMeetTheOutage / std::max(1.0, window)));
  return "not run on this machine: its " + std::to_string(clients) +
         " clients are a process each, and one cost " + std::to_string(per_process.count()) +
         " ms of CPU earlier in this run: " + seconds(cpu) + " of CPU on " + count(cores) +
         ", so that a quarter of them would start " + seconds(share_started) +
         " in, after its last outage ends at " + seconds(window) +
         ". Run it with --sessions (a client that speaks the session contract, "
         "docs/sessions.md), or on a machine with " +
         count(enough) + " or more";
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

ScenarioResult not_run(const Scenario& scenario, const std::string& client, std::uint64_t seed,
                       const std::string& why) {
  ScenarioResult result{.name = scenario.name,
                        .description = scenario.description,
                        .file = scenario.file.string(),
                        .client = client,
                        .seed = seed};
  result.inconclusive.push_back({.text = why, .verdict = ""});
  return result;
}

}  // namespace retryproof::scenarios
