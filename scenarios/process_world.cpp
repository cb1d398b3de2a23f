#include "scenarios/process_world.hpp"

#include <signal.h>

#include <algorithm>

#include "common/duration.hpp"
#include "scenarios/child_process.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

// The reference client and the mutants take their settings from RETRYPROOF_CLIENT, as any
// client may.
std::vector<std::string> client_argv(const ClientChoice& choice, const RunOptions& options,
                                     std::uint64_t seed) {
  if (choice.kind == ClientChoice::Kind::command) return {"/bin/sh", "-c", choice.command};
  std::vector<std::string> argv = {options.executable.string(), "client", "--seed",
                                   std::to_string(seed)};
  if (choice.kind == ClientChoice::Kind::mutant) {
    argv.insert(argv.end(), {"--mutant", client::to_string(choice.mutant)});
  }
  return argv;
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t found = 0; start > 0 && found <= count;) {
    if (text[--start] == '\n' && start + 1 < text.size()) ++found;
  }
  return start == 0 ? text : text.substr(start + 1);
}

std::chrono::milliseconds until(SteadyClock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(deadline - SteadyClock::now(), SteadyClock::duration(0)));
}

}  // namespace

ProcessWorld::ProcessWorld(const Scenario& scenario, const ClientChoice& client,
                           const RunOptions& options)
    : scenario_(scenario),
      client_(client),
      options_(options),
      server_(provider_config(scenario, options.seed),
              {.host = "127.0.0.1", .port = 0, .workers = 2}),
      state_("retryproof-run") {}

InvocationResult ProcessWorld::invoke(const InvocationPlan& plan) {
  provider::ProviderCore& core = server_.core();
  if (plan.invocation.after > Millis(0)) core.advance_clock(plan.invocation.after);
  InvocationResult result{.index = plan.index,
                          .operation = plan.invocation.operation,
                          .payload = plan.payload,
                          .first_seq = core.journal_size() + 1,
                          .started_at = server_.now()};
  const std::size_t jobs_before = core.job_count();

  ChildProcess child(
      client_argv(client_, options_, plan.client_seed),
      {{"RETRYPROOF_BASE_URL", server_.base_url()},
       {"RETRYPROOF_CLIENT",
        client::settings_to_contract(scenario_.settings, scenario_.time_limit).dump()},
       {"RETRYPROOF_OPERATION",
        json{{"operationId", plan.invocation.operation}, {"payload", plan.payload}}.dump()},
       {"RETRYPROOF_STATE_DIR", state_.path().string()},
       {"RETRYPROOF_SEED", std::to_string(plan.client_seed)}});
  const auto deadline = SteadyClock::now() + scenario_.time_limit;

  const KillPoint& kill = plan.invocation.kill;
  const auto kill_point_reached = [&](const provider::ProviderCore::Progress& progress) {
    return kill.reached(progress.jobs - jobs_before,
                        progress.journal_entries + 1 - result.first_seq);
  };
  std::optional<ExitStatus> status;
  if (kill.armed()) {
    // Until the provider's records show the point reached, or the client ends first (then
    // there is nothing to kill). The slices let the loop notice a client that ended.
    while (!status && SteadyClock::now() < deadline) {
      const auto slice = std::min(deadline, SteadyClock::now() + std::chrono::milliseconds(20));
      if (core.wait_until(kill_point_reached, slice)) {
        child.send_signal(SIGKILL);
        result.killed = true;
        break;
      }
      status = child.wait(std::chrono::milliseconds(0));
    }
  }
  if (!status) status = child.wait(until(deadline));
  if (!status) {
    child.send_signal(SIGKILL);
    status = child.wait(std::chrono::seconds(10));
    result.timed_out = true;
  }
  result.exit = status ? status->describe() : "still running";
  result.standard_error = last_lines(child.standard_error(), 40);
  result.ended_at = server_.now();
  result.last_seq = core.journal_size();

  if (result.killed || result.timed_out) return result;
  if (kill.armed()) result.client_error = not_reached(kill);
  OutcomeReading reading = read_outcome_line(child.standard_output());
  result.outcome = std::move(reading.line);
  if (!reading.problem.empty()) {
    result.client_error = reading.problem + " (" + result.exit + ")";
  } else if (!status->exited() || status->code != 0) {
    result.client_error = "ended with " + result.exit + " after printing its outcome";
  }
  return result;
}

RunEvidence ProcessWorld::finish() {
  // Requests still held end their waits, and commit, before the provider is judged.
  server_.stop();
  return {server_.core().journal(), server_.core().jobs()};
}

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  const ClientChoice choice = scenario.pinned_client.value_or(options.client);
  ProcessWorld world(scenario, choice, options);
  // --client-policy declares what the user's client promises; a scenario that pins its own
  // client is judged by what that client promises, whatever --client was.
  const ClientPolicy declared = scenario.pinned_client ? ClientPolicy{} : options.declared;
  return drive(scenario, choice, declared, options.seed, world);
}

}  // namespace retryproof::scenarios
