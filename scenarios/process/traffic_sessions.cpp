#include "scenarios/process/traffic_sessions.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <thread>

#include "scenarios/process/session_process.hpp"

namespace retryproof::scenarios {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often the harness looks for outcomes and sends what is due: a fleet's timing is
// judged in tens of milliseconds.
constexpr std::chrono::milliseconds kSessionSlice(5);
// How many times an instance is restarted before its operations are given up on.
constexpr int kMostRestarts = 3;
constexpr std::chrono::seconds kToExit(10);  // after end of input, to finish and exit

class SessionFleet {
 public:
  SessionFleet(const std::vector<InvocationPlan>& plans, const TrafficSessions& setup)
      : plans_(plans), setup_(setup), kills_(setup.kills) {
    for (std::size_t i = 0; i < plans.size(); ++i) {
      runs_.push_back({.plan = i,
                       .result = {.index = plans[i].index,
                                  .operation = plans[i].invocation.operation,
                                  .payload = plans[i].payload,
                                  .instance = setup.instance_of.at(i)}});
      if (!setup.ports.empty())
        runs_[i].result.port = setup.ports.at(static_cast<std::size_t>(setup.instance_of.at(i)));
    }
    std::stable_sort(kills_.begin(), kills_.end(),
                     [](const InstanceKill& a, const InstanceKill& b) { return a.at < b.at; });
    for (int n = 1; n <= setup.instances; ++n)
      sessions_.push_back(start(n));
    restarts_.assign(sessions_.size(), 0);
  }

  std::vector<InvocationResult> run() {
    const auto begun = SteadyClock::now();
    std::size_t next = 0;
    while (next < plans_.size() || !pending_.empty()) {
      while (next < plans_.size() && SteadyClock::now() >= due(begun, arrival(next))) {
        if (setup_.stall_watch) {
          setup_.stall_watch->started_late("operation " + std::to_string(next + 1),
                                           SteadyClock::now() - due(begun, arrival(next)));
        }
        const std::size_t arrived = next++;
        runs_[arrived].result.started_at = setup_.now();
        runs_[arrived].sent_at = SteadyClock::now();
        send(arrived, plans_[arrived].invocation.operation);
      }
      collect();
      kill_what_is_due();
      const auto wake = next < plans_.size() ? std::min(due(begun, arrival(next)),
                                                        SteadyClock::now() + kSessionSlice)
                                             : SteadyClock::now() + kSessionSlice;
      std::this_thread::sleep_until(wake);
    }
    finish();
    std::vector<InvocationResult> results;
    for (Run& run : runs_)
      results.push_back(std::move(run.result));
    return results;
  }

 private:
  // One run of an operation: its first, or a rerun after a kill of its instance.
  struct Run {
    std::size_t plan;
    InvocationResult result;
    std::string id;                   // the id it was last sent under
    SteadyClock::time_point sent_at;  // its operation's first sending: its time limit's start
  };

  std::unique_ptr<SessionProcess> start(int instance) {
    std::map<std::string, std::string> environment = setup_.environment;
    const std::filesystem::path state = setup_.state_dir / ("instance-" + std::to_string(instance));
    std::filesystem::create_directories(state);
    environment["RETRYPROOF_STATE_DIR"] = state.string();
    // Which of the fleet's instances it is, whatever process of it (RETRYPROOF_INSTANCE
    // counts those, from 1 for each instance).
    environment["RETRYPROOF_SERVICE_INSTANCE"] = std::to_string(instance);
    environment["RETRYPROOF_SEED"] = std::to_string(setup_.seed + static_cast<unsigned>(instance));
    if (!setup_.ports.empty()) {
      environment["RETRYPROOF_BASE_URL"] =
          setup_.base_url_of(setup_.ports.at(static_cast<std::size_t>(instance - 1)));
    }
    return std::make_unique<SessionProcess>(setup_.argv, std::move(environment));
  }

  Millis arrival(std::size_t i) const { return setup_.arrivals.at(i); }

  SteadyClock::time_point due(SteadyClock::time_point begun, Millis at) const {
    return begun + setup_.time_scale.to_real(at);
  }

  std::size_t instance_of(std::size_t run) const {
    return static_cast<std::size_t>(setup_.instance_of.at(runs_[run].plan));
  }
  SessionProcess& session_of(std::size_t run) { return *sessions_[instance_of(run)]; }

  void send(std::size_t run, const std::string& id) {
    runs_[run].id = id;
    runs_[run].result.process = session_of(run).instance() - 1;
    run_of_id_[id] = run;
    pending_.insert(run);
    session_of(run).send(id, plans_[runs_[run].plan].invocation.operation,
                         plans_[runs_[run].plan].payload, std::chrono::seconds(1));
  }

  void answered(std::size_t run, const SessionOutcome& answer) {
    InvocationResult& result = runs_[run].result;
    result.outcome = answer.line;
    result.exit = "answered by instance " + std::to_string(instance_of(run) + 1) + "'s session";
    result.ended_at = setup_.now();
  }

  void collect() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      const std::size_t run = *it;
      InvocationResult& result = runs_[run].result;
      if (const auto answer = session_of(run).outcome(runs_[run].id)) {
        answered(run, *answer);
        it = pending_.erase(it);
        continue;
      }
      if (SteadyClock::now() >= runs_[run].sent_at + setup_.time_limit_real()) {
        result.timed_out = true;
        result.ended_at = setup_.now();
        result.exit = "no answer within the time limit";
        it = pending_.erase(it);
        continue;
      }
      ++it;
    }
    for (std::size_t n = 0; n < sessions_.size(); ++n) {
      if (!sessions_[n]->alive()) restart(n);
    }
  }

  bool waited_on(std::size_t n) const {
    return std::any_of(pending_.begin(), pending_.end(),
                       [&](std::size_t run) { return instance_of(run) == n; });
  }

  // Each planned kill whose time has come on the provider's clock (scenario time, as its
  // outages are: it starts at the first request, after the sessions have started), of an
  // instance with an operation unanswered.
  void kill_what_is_due() {
    for (auto kill = kills_.begin(); kill != kills_.end();) {
      const auto n = static_cast<std::size_t>(kill->instance);
      if (setup_.now() < kill->at || !waited_on(n)) {
        ++kill;
        continue;
      }
      kill_instance(n, *kill);
      kill = kills_.erase(kill);
    }
  }

  // The scenario's kill: SIGKILL, then the supervisor's restart. What had no outcome line
  // when the process died was killed with it, and runs again on the next process.
  void kill_instance(std::size_t n, const InstanceKill& kill) {
    const std::set<int> dead_connections = sessions_[n]->kill_naming_connections();
    const Millis now = setup_.now();
    const std::uint64_t first_seq = setup_.journal_size ? setup_.journal_size() + 1 : 1;
    std::vector<std::size_t> killed;
    for (auto it = pending_.begin(); it != pending_.end();) {
      const std::size_t run = *it;
      if (instance_of(run) != n) {
        ++it;
        continue;
      }
      if (const auto answer = session_of(run).outcome(runs_[run].id)) {
        answered(run, *answer);  // its line was out before the signal landed
      } else {
        InvocationResult& result = runs_[run].result;
        result.killed = true;
        result.ended_at = now;
        result.exit = "killed by SIGKILL, the scenario's kill of " + kill.describe();
        killed.push_back(run);
      }
      it = pending_.erase(it);
    }
    sessions_[n]->restart();  // what it returns is `killed`: each is rerun as a run of its own
    for (const std::size_t run : killed) {
      const std::size_t plan = runs_[run].plan;
      runs_.push_back({.plan = plan,
                       .result = {.index = static_cast<int>(runs_.size()),
                                  .operation = plans_[plan].invocation.operation,
                                  .payload = plans_[plan].payload,
                                  .first_seq = first_seq,
                                  .instance = static_cast<int>(n),
                                  .started_at = now,
                                  .rerun_of = plans_[plan].index,
                                  .dead_connections = dead_connections},
                       .sent_at = runs_[plan].sent_at});
      send(runs_.size() - 1,
           plans_[plan].invocation.operation + "#rerun-" + std::to_string(++reruns_sent_));
    }
  }

  // A session that ended on its own with operations in flight: restarted, and they are sent
  // again, within the runs they belong to.
  void restart(std::size_t n) {
    if (!waited_on(n)) return;
    if (restarts_[n]++ >= kMostRestarts) {
      for (auto it = pending_.begin(); it != pending_.end();) {
        if (instance_of(*it) != n) {
          ++it;
          continue;
        }
        InvocationResult& result = runs_[*it].result;
        result.client_error = "its session (instance " + std::to_string(n + 1) + ") ended " +
                              std::to_string(kMostRestarts + 1) + " times before answering it";
        result.ended_at = setup_.now();
        it = pending_.erase(it);
      }
      return;
    }
    for (const std::string& id : sessions_[n]->restart()) {
      const auto found = run_of_id_.find(id);
      if (found == run_of_id_.end() || !pending_.contains(found->second)) continue;
      send(found->second, plans_[runs_[found->second].plan].invocation.operation + "#rerun-" +
                              std::to_string(++reruns_sent_));
    }
  }

  void finish() {
    for (const auto& session : sessions_)
      session->close_input();
    for (const auto& session : sessions_)
      session->wait_for_exit(SteadyClock::now() + kToExit);
    std::map<std::string, std::string> errors;  // by id
    for (const auto& session : sessions_) {
      for (const ContractError& error : session->contract_errors())
        if (!error.id.empty()) errors.emplace(error.id, error.describe());
    }
    for (std::size_t run = 0; run < runs_.size(); ++run) {
      InvocationResult& result = runs_[run].result;
      if (result.killed) continue;
      if (const auto error = errors.find(runs_[run].id); error != errors.end())
        result.client_error = error->second;
      else if (!result.outcome && !result.timed_out && result.client_error.empty())
        result.client_error = "its session printed no valid outcome line for it";
      if (!result.client_error.empty())
        result.standard_error = session_of(run).standard_error().substr(0, 4000);
    }
  }

  const std::vector<InvocationPlan>& plans_;
  const TrafficSessions& setup_;
  std::vector<InstanceKill> kills_;  // not yet done, by time
  std::vector<Run> runs_;            // each plan's first run, by plan; then reruns, as sent
  std::vector<std::unique_ptr<SessionProcess>> sessions_;
  std::vector<int> restarts_;
  std::set<std::size_t> pending_;  // runs sent, not answered
  std::map<std::string, std::size_t> run_of_id_;
  int reruns_sent_ = 0;  // ids of reruns are unique across the fleet
};

}  // namespace

std::vector<InvocationResult> run_traffic_sessions(const std::vector<InvocationPlan>& plans,
                                                   const TrafficSessions& setup) {
  return SessionFleet(plans, setup).run();
}

}  // namespace retryproof::scenarios
