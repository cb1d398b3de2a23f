// The real world: a provider in-process on an ephemeral loopback port, and the client as a
// separate process under the external-client contract (the reference client and the
// mutants are this same program's `client` subcommand), with kill points that are a real
// SIGKILL.
#pragma once

#include <filesystem>
#include <memory>

#include "common/temp_dir.hpp"
#include "common/time_scale.hpp"
#include "provider/provider_server.hpp"
#include "scenarios/driver/driver.hpp"
#include "scenarios/driver/machine_fit.hpp"
#include "scenarios/driver/scale_guard.hpp"
#include "scenarios/process/child_process.hpp"
#include "scenarios/process/stall_watch.hpp"

namespace retryproof::scenarios {

struct RunOptions {
  ClientChoice client;               // a scenario's pinned client wins over it
  std::uint64_t seed = 0;            // provider job ids; client i gets seed + i
  std::filesystem::path executable;  // this program, to run `client` for reference and mutants
  ClientPolicy declared;             // --client-policy: what the client under test promises
  TimeScale time_scale;              // --time-scale: the provider, the limits and the client
  // The real time a retry that does not wait at all may take here, which the scale guard
  // allows for (measured by settle_time_scale, retry_overhead.hpp).
  Millis retry_overhead = kLeastRetryOverhead;
  // --tls: every scenario's provider serves HTTPS (as one with "tls": true does), and clients
  // trust its CA through the environment (run_tls.hpp).
  bool tls = false;
  // --simulate: every scenario runs in the simulation, in virtual time (the reference client
  // or a mutant only), instead of with processes over HTTP.
  bool simulate = false;
  // --sessions: the client speaks the session contract (docs/sessions.md); a fleet's
  // operations are served by ten long-lived sessions instead of a process each. Traffic
  // always runs as sessions.
  bool sessions = false;
  // What the run's clients' processes have cost so far, shared by its workers: a fleet the
  // machine cannot start in time is not run (machine_fit.hpp). None: every fleet runs.
  ClientCosts* costs = nullptr;
};

class ProcessWorld final : public World {
 public:
  ProcessWorld(const Scenario& scenario, const ClientChoice& client, const RunOptions& options);

  InvocationResult invoke(const InvocationPlan& plan) override;
  std::vector<InvocationResult> invoke_fleet(const std::vector<InvocationPlan>& plans,
                                             const Fleet& fleet) override;
  RunEvidence finish() override;
  bool serves_as_instances(const Scenario& scenario) const override {
    return scenario.traffic || (options_.sessions && scenario.fleet.is_fleet());
  }

 private:
  // The client of one invocation, started with the contract's environment.
  std::unique_ptr<ChildProcess> start_client(const InvocationPlan& plan,
                                             const std::string& base_url);
  // Traffic, or a fleet under --sessions: a session per instance (traffic_sessions.hpp).
  std::vector<InvocationResult> invoke_sessions(const std::vector<InvocationPlan>& plans,
                                                const Fleet& fleet, bool session_per_invocation);
  // A fleet under --sessions: ten sessions, or one per invocation where two run one operation.
  std::vector<InvocationResult> invoke_fleet_as_sessions(const std::vector<InvocationPlan>& plans,
                                                         const Fleet& fleet);
  // A fleet of processes, one per invocation.
  std::vector<InvocationResult> invoke_processes(const std::vector<InvocationPlan>& plans,
                                                 const Fleet& fleet);
  // Its exit, standard error and outcome line, into `result`.
  void take_account(InvocationResult& result, const ChildProcess& child,
                    const std::optional<ExitStatus>& status);

  const Scenario& scenario_;
  ClientChoice client_;
  RunOptions options_;
  bool tls_;
  provider::ProviderServer server_;
  TempDir state_;           // one state directory serves every invocation of the scenario
  StallWatch stall_watch_;  // the harness's own lateness while the scenario runs
};

// Drives the scenario through a ProcessWorld, once, at the largest scale up to
// options.time_scale at which its verdicts hold (scale_guard.hpp, scale_for).
ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options);

// Drives it once, at options.time_scale whatever it shows: for the clock probe.
ScenarioResult run_scenario_once(const Scenario& scenario, const RunOptions& options);

}  // namespace retryproof::scenarios
