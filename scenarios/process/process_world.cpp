#include "scenarios/process/process_world.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <set>
#include <thread>

#include "common/duration.hpp"
#include "common/invariant.hpp"
#include "scenarios/driver/scale_guard.hpp"
#include "scenarios/process/child_process.hpp"
#include "scenarios/process/invocation_deadline.hpp"
#include "scenarios/process/kill_watch.hpp"
#include "scenarios/process/run_tls.hpp"
#include "scenarios/process/scaled_client.hpp"
#include "scenarios/process/traffic_sessions.hpp"
#include "scenarios/simulation/simulated_world.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

// The reference client and the mutants take their settings from RETRYPROOF_CLIENT, as any
// client may, and the time scale as a flag of their own.
std::vector<std::string> client_argv(const ClientChoice& choice, const RunOptions& options,
                                     std::uint64_t seed) {
  if (choice.kind == ClientChoice::Kind::command) return {"/bin/sh", "-c", choice.command};
  std::vector<std::string> argv = {options.executable.string(), "client", "--seed",
                                   std::to_string(seed)};
  if (choice.kind == ClientChoice::Kind::mutant) {
    argv.insert(argv.end(), {"--mutant", client::to_string(choice.mutant)});
  }
  const std::vector<std::string> scaled = time_scale_arguments(options.time_scale);
  argv.insert(argv.end(), scaled.begin(), scaled.end());
  return argv;
}

// An external program runs under libfaketime at the time scale.
std::map<std::string, std::string> client_environment(const ClientChoice& choice,
                                                      const RunOptions& options) {
  if (choice.kind != ClientChoice::Kind::command) return {};
  return faketime_environment(options.time_scale);
}

provider::ServerOptions server_options(const RunOptions& options, bool tls, bool fleet) {
  // A fleet's scenario time starts with its first request, as in the simulation: the
  // processes' start, at N times its real length, is no part of an outage's window.
  provider::ServerOptions server{.host = "127.0.0.1",
                                 .port = 0,
                                 .workers = 2,
                                 .time_scale = options.time_scale,
                                 .clock_starts_at_first_request = fleet};
  if (tls) server.tls = run_tls().identity;
  return server;
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t found = 0; start > 0 && found <= count;) {
    if (text[--start] == '\n' && start + 1 < text.size()) ++found;
  }
  return start == 0 ? text : text.substr(start + 1);
}

// Where clients keep their state: in memory (tmpfs) when the machine has it, unless TMPDIR
// says otherwise. A kill point kills a process, not the machine, so what a client saved
// survives there as on a disk, and its fsyncs cost nothing instead of milliseconds, which
// --time-scale N would count N times between its attempts.
std::filesystem::path state_parent() {
  const std::filesystem::path memory = "/dev/shm";
  std::error_code ignored;
  if (std::getenv("TMPDIR") == nullptr && std::filesystem::is_directory(memory, ignored) &&
      access(memory.c_str(), W_OK) == 0) {
    return memory;
  }
  return std::filesystem::temp_directory_path();
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
      tls_(options.tls || scenario.tls),
      server_(
          provider_config(scenario, options.seed),
          server_options(options, tls_, scenario.fleet.is_fleet() || scenario.traffic.has_value())),
      state_("retryproof-run", state_parent()),
      stall_watch_([this] { return server_.now(); }, options.time_scale, scenario.name) {}

std::unique_ptr<ChildProcess> ProcessWorld::start_client(const InvocationPlan& plan,
                                                         const std::string& base_url) {
  std::map<std::string, std::string> environment = client_environment(client_, options_);
  environment.merge(std::map<std::string, std::string>{
      {"RETRYPROOF_BASE_URL", base_url},
      {"RETRYPROOF_CLIENT",
       client::settings_to_contract(scenario_.settings, scenario_.time_limit).dump()},
      {"RETRYPROOF_OPERATION",
       json{{"operationId", plan.invocation.operation}, {"payload", plan.payload}}.dump()},
      {"RETRYPROOF_STATE_DIR", state_.path().string()},
      {"RETRYPROOF_SEED", std::to_string(plan.client_seed)}});
  if (tls_) environment.merge(tls_client_environment(run_tls()));
  return std::make_unique<ChildProcess>(client_argv(client_, options_, plan.client_seed),
                                        environment);
}

namespace {

constexpr std::chrono::milliseconds kSlice(20);  // how soon a loop notices a change

// Waits until the provider's records show the kill point reached, then kills the client; or
// until the client ends first (then there is nothing to kill), or the deadline. The slices
// let the loop notice a client that ended. Its exit status, when it ended on its own.
std::optional<ExitStatus> kill_at_its_point(
    ChildProcess& child, provider::ProviderCore& core, const KillWatch& kill,
    const std::function<SteadyClock::time_point()>& deadline, InvocationResult& result) {
  std::optional<ExitStatus> status;
  while (!status && SteadyClock::now() < deadline()) {
    const provider::ProviderCore::Progress seen = core.progress();
    if (kill.reached()) {
      child.send_signal(SIGKILL);
      result.killed = true;
      break;
    }
    // Until a request is journaled or a job stored (then the journal is read again).
    const auto slice = std::min(deadline(), SteadyClock::now() + kSlice);
    core.wait_until(
        [&](const provider::ProviderCore::Progress& now) {
          return now.jobs != seen.jobs || now.journal_entries != seen.journal_entries;
        },
        slice);
    status = child.wait(std::chrono::milliseconds(0));
  }
  return status;
}

}  // namespace

InvocationResult ProcessWorld::invoke(const InvocationPlan& plan) {
  provider::ProviderCore& core = server_.core();
  if (plan.invocation.after > Millis(0)) core.advance_clock(plan.invocation.after);
  // Before anything of this invocation is journaled: its window starts here.
  const KillWatch kill(core, plan.invocation.kill);
  InvocationResult result{.index = plan.index,
                          .operation = plan.invocation.operation,
                          .payload = plan.payload,
                          .first_seq = kill.first_seq(),
                          .started_at = server_.now()};
  // The answers kept from a client killed before this one go out now, to a dead client: what
  // it had written and the provider had not read yet is read from here on, in this window,
  // and charged to it by its connection (scenarios/driver/attribution.hpp); the kill watch
  // does not count it as this client's.
  server_.answers().open();
  // The answer that reaches the kill point, and every later one, is kept until the client is
  // dead: it dies not knowing that answer, as the simulated client does. The gate may ask
  // after this call returns (an answer passing as the client is killed): it holds a copy.
  if (plan.invocation.kill.armed()) server_.answers().close_when([kill] { return kill.reached(); });

  const std::unique_ptr<ChildProcess> started = start_client(plan, server_.base_url());
  ChildProcess& child = *started;
  InvocationDeadline limit(scenario_.time_limit, options_.time_scale);
  const auto deadline = [&] { return limit.at(core.journal_size() >= result.first_seq); };

  std::optional<ExitStatus> status;
  if (plan.invocation.kill.armed()) status = kill_at_its_point(child, core, kill, deadline, result);
  while (!status && SteadyClock::now() < deadline()) {
    status = child.wait(until(std::min(deadline(), SteadyClock::now() + kSlice)));
  }
  if (!status) {
    child.send_signal(SIGKILL);
    status = child.wait(std::chrono::seconds(10));
    result.timed_out = true;
  }
  result.last_seq = core.journal_size();
  // A client that ended before its kill point: nothing to keep its answers from.
  if (!result.killed) server_.answers().open();
  if (!result.killed && !result.timed_out && plan.invocation.kill.armed())
    result.kill_missed = true;
  take_account(result, child, status);
  return result;
}

void ProcessWorld::take_account(InvocationResult& result, const ChildProcess& child,
                                const std::optional<ExitStatus>& status) {
  result.exit = status ? status->describe() : "still running";
  result.standard_error = last_lines(child.standard_error(), 40);
  result.ended_at = server_.now();
  if (status) result.cpu = status->cpu;
  if (result.killed) return;
  if (result.timed_out) {
    // A client may print its outcome and then fail to exit (a timer its SDK left running):
    // its word is kept and judged, and time-limit says why it was stopped.
    result.outcome = read_outcome_line(child.standard_output()).line;
    return;
  }
  OutcomeReading reading = read_outcome_line(child.standard_output());
  result.outcome = std::move(reading.line);
  if (!reading.problem.empty()) {
    result.client_error = reading.problem + " (" + result.exit + ")";
  } else if (!status->exited() || status->code != 0) {
    result.client_error = "ended with " + result.exit + " after printing its outcome";
  }
}

// A fleet run as sessions: its clients' operations served by this many instances, each
// operation sent when its client would have started.
constexpr int kFleetSessions = 10;

std::vector<InvocationResult> ProcessWorld::invoke_sessions(
    const std::vector<InvocationPlan>& plans, const Fleet& fleet, bool session_per_invocation) {
  std::vector<std::string> argv = client_argv(client_, options_, options_.seed);
  if (client_.kind != ClientChoice::Kind::command) argv.emplace_back("--session");
  std::map<std::string, std::string> environment = client_environment(client_, options_);
  environment.merge(std::map<std::string, std::string>{
      {"RETRYPROOF_BASE_URL", server_.base_url()},
      {"RETRYPROOF_CLIENT",
       client::settings_to_contract(scenario_.settings, scenario_.time_limit).dump()}});
  if (tls_) environment.merge(tls_client_environment(run_tls()));
  TrafficSessions setup{.argv = std::move(argv),
                        .environment = std::move(environment),
                        .instances = scenario_.traffic ? scenario_.traffic->instances
                                     : session_per_invocation
                                         ? static_cast<int>(plans.size())
                                         : std::min<int>(kFleetSessions, fleet.concurrency),
                        .state_dir = state_.path(),
                        .seed = options_.seed,
                        .time_scale = options_.time_scale,
                        .time_limit = scenario_.time_limit,
                        .now = [this] { return server_.now(); },
                        .stall_watch = &stall_watch_};
  if (scenario_.traffic) {
    setup.kills = scenario_.traffic->kills;
    setup.journal_size = [this] { return server_.core().journal_size(); };
  }
  if (session_per_invocation) {
    for (std::size_t i = 0; i < plans.size(); ++i)
      setup.ports.push_back(server_.add_listener());
    setup.base_url_of = [this](int port) { return server_.base_url_of(port); };
  }
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const Invocation& invocation = plans[i].invocation;
    setup.arrivals.push_back(invocation.starts_at.value_or(
        fleet.start_spread * static_cast<Millis::rep>(i) / static_cast<Millis::rep>(plans.size())));
    setup.instance_of.push_back(scenario_.traffic ? invocation.instance
                                                  : static_cast<int>(i) % setup.instances);
  }
  return run_traffic_sessions(plans, setup);
}

std::vector<InvocationResult> ProcessWorld::invoke_fleet(const std::vector<InvocationPlan>& plans,
                                                         const Fleet& fleet) {
  if (scenario_.traffic) return invoke_sessions(plans, fleet, false);
  if (options_.sessions) return invoke_fleet_as_sessions(plans, fleet);
  return invoke_processes(plans, fleet);
}

std::vector<InvocationResult> ProcessWorld::invoke_fleet_as_sessions(
    const std::vector<InvocationPlan>& plans, const Fleet& fleet) {
  // Requests are charged to a session's operations by what they carry: two invocations of
  // one operation (two workers racing for it) carry the same, and get a port each.
  std::set<std::string> operations;
  for (const InvocationPlan& plan : plans)
    operations.insert(plan.invocation.operation);
  if (operations.size() == plans.size()) return invoke_sessions(plans, fleet, false);
  std::cerr << scenario_.name
            << ": a session per invocation, each on a port of its own: two of its "
               "invocations run one operation, and what their requests carry cannot tell "
               "them apart\n";
  return invoke_sessions(plans, fleet, true);
}

// A process per client, `fleet.concurrency` at a time, each on a port of its own.
std::vector<InvocationResult> ProcessWorld::invoke_processes(
    const std::vector<InvocationPlan>& plans, const Fleet& fleet) {
  struct Running {
    std::size_t plan;
    std::unique_ptr<ChildProcess> child;
    InvocationDeadline limit;
  };
  std::vector<InvocationResult> results;
  // A port per client, bound before the first starts: its requests are its, whatever keys
  // it sends, and a client that reconnects comes back to the same port.
  for (const InvocationPlan& plan : plans) {
    results.push_back({.index = plan.index,
                       .operation = plan.invocation.operation,
                       .payload = plan.payload,
                       .port = server_.add_listener()});
  }
  const auto begun = SteadyClock::now();
  const auto start_at = [&](std::size_t i) {
    const auto offset =
        fleet.start_spread * static_cast<Millis::rep>(i) / static_cast<Millis::rep>(plans.size());
    return begun + options_.time_scale.to_real(offset);
  };
  std::vector<Running> running;
  std::size_t next = 0;
  // A slice as short as a fleet's clients notice: each loop reaps who ended, stops who ran
  // out of time, and starts who is due.
  constexpr std::chrono::milliseconds kFleetSlice(2);
  while (next < plans.size() || !running.empty()) {
    while (next < plans.size() && running.size() < static_cast<std::size_t>(fleet.concurrency) &&
           SteadyClock::now() >= start_at(next)) {
      results[next].started_at = server_.now();
      stall_watch_.started_late("client " + std::to_string(next + 1),
                                SteadyClock::now() - start_at(next));
      running.push_back({next, start_client(plans[next], server_.base_url_of(*results[next].port)),
                         InvocationDeadline(scenario_.time_limit, options_.time_scale)});
      ++next;
    }
    for (auto it = running.begin(); it != running.end();) {
      InvocationResult& result = results[it->plan];
      std::optional<ExitStatus> status = it->child->wait(std::chrono::milliseconds(0));
      if (!status && SteadyClock::now() >= it->limit.at(true)) {
        it->child->send_signal(SIGKILL);
        status = it->child->wait(std::chrono::seconds(10));
        result.timed_out = true;
      }
      if (!status && !result.timed_out) {
        ++it;
        continue;
      }
      take_account(result, *it->child, status);
      it = running.erase(it);
    }
    std::this_thread::sleep_for(kFleetSlice);
  }
  return results;
}

RunEvidence ProcessWorld::finish() {
  // Requests still held end their waits, and commit, before the provider is judged.
  server_.stop();
  throw_if_internal_error();  // the provider broke an invariant of its own while it served
  return {server_.core().journal(), server_.core().jobs(), server_.core().plan_uses(),
          stall_watch_.stop()};
}

namespace {

// The client a scenario runs and what it is judged to promise: --client-policy declares what
// the user's client promises; a scenario that pins its own client is judged by what that
// client promises, whatever --client was.
struct ScenarioClient {
  ClientChoice choice;
  ClientPolicy declared;
};

ScenarioClient client_of(const Scenario& scenario, const RunOptions& options) {
  if (scenario.pinned_client) return {*scenario.pinned_client, ClientPolicy{}};
  return {options.client, options.declared};
}

}  // namespace

ScenarioResult run_scenario_once(const Scenario& scenario, const RunOptions& options) {
  const ScenarioClient client = client_of(scenario, options);
  ProcessWorld world(scenario, client.choice, options);
  ScenarioResult result = drive(scenario, client.choice, client.declared, options.seed, world);
  result.scale = options.time_scale.factor();
  return result;
}

ScenarioResult run_scenario(const Scenario& scenario, const RunOptions& options) {
  const ScenarioClient client = client_of(scenario, options);
  if (options.simulate)
    return simulate(scenario, client.choice, options.seed, client.declared).result;
  const JudgedPolicy policy =
      judged_policy(scenario, client.declared.over(implicit_policy(client.choice)));
  const ChosenScale chosen =
      scale_for(policy, options.time_scale, options.retry_overhead,
                clients_per_core(scenario.fleet.concurrency, std::thread::hardware_concurrency()));
  if (const auto per_process = options.costs && !options.sessions
                                   ? options.costs->per_process(client.choice.describe())
                                   : std::nullopt) {
    const std::string why =
        fleet_too_heavy(scenario, *per_process, usable_cores(), chosen.scale.factor());
    if (!why.empty()) return not_run(scenario, client.choice.describe(), options.seed, why);
  }
  RunOptions at_scale = options;
  at_scale.time_scale = chosen.scale;
  ScenarioResult result = run_scenario_once(scenario, at_scale);
  result.scale_why = chosen.why;
  return result;
}

}  // namespace retryproof::scenarios
