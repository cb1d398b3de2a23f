// Whether this machine can run a fleet as a process per client and still test it. A fleet
// scenario judges what its clients do while its outages last, and each client's process must
// start first: a hundred of them queue for the machine's cores. Where the cores could start
// fewer than a quarter of the fleet before its last outage ends, the run would judge the few
// clients the outage met, beside many that never met it (greens that saw nothing) and others
// the machine starved (reds the machine made). Such a scenario is not run: the report says so, with
// the numbers, and what would run it (sessions, or more cores). What a process costs is measured,
// not assumed: the CPU time of the client's earlier processes in the same run, each run alone.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/millis.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// The CPU time one process of each client has cost so far in a run, from the invocations
// of scenarios that ran one client at a time, as processes, and ended on their own. Thread-safe: a
// run's workers add each scenario's result as it finishes.
class ClientCosts {
 public:
  void add(const ScenarioResult& result);
  // The median over the client's processes so far (as --client spells it); none before one.
  std::optional<Millis> per_process(const std::string& client) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<Millis>> samples_;
};

// Why `cores` cannot start `scenario`'s fleet in time to meet its outages, its clients
// costing `per_process` each and its time running `scale` times faster than real time; empty
// when they can, or when the scenario is not a fleet with an outage.
std::string fleet_too_heavy(const Scenario& scenario, Millis per_process, int cores, int scale);

// The CPUs this process may run on.
int usable_cores();

// A scenario the run did not run, for the reports: inconclusive, saying why.
ScenarioResult not_run(const Scenario& scenario, const std::string& client, std::uint64_t seed,
                       const std::string& why);

}  // namespace retryproof::scenarios
