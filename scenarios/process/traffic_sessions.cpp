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
      : plans_(plans), setup_(setup), results_(plans.size()), sent_at_(plans.size()) {
    for (std::size_t i = 0; i < plans.size(); ++i) {
      results_[i] = {.index = plans[i].index,
                     .operation = plans[i].invocation.operation,
                     .payload = plans[i].payload,
                     .instance = setup.instance_of.at(i)};
      if (!setup.ports.empty())
        results_[i].port = setup.ports.at(static_cast<std::size_t>(setup.instance_of.at(i)));
    }
    for (int n = 1; n <= setup.instances; ++n)
      sessions_.push_back(start(n));
    restarts_.assign(sessions_.size(), 0);
  }

  std::vector<InvocationResult> run() {
    const auto begun = SteadyClock::now();
    std::size_t next = 0;
    while (next < plans_.size() || !pending_.empty()) {
      while (next < plans_.size() && SteadyClock::now() >= due(begun, next)) {
        if (setup_.stall_watch) {
          setup_.stall_watch->started_late("operation " + std::to_string(next + 1),
                                           SteadyClock::now() - due(begun, next));
        }
        const std::size_t arrived = next++;
        send(arrived, plans_[arrived].invocation.operation);
      }
      collect();
      const auto wake = next < plans_.size()
                            ? std::min(due(begun, next), SteadyClock::now() + kSessionSlice)
                            : SteadyClock::now() + kSessionSlice;
      std::this_thread::sleep_until(wake);
    }
    finish();
    return std::move(results_);
  }

 private:
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

  SteadyClock::time_point due(SteadyClock::time_point begun, std::size_t i) const {
    return begun + setup_.time_scale.to_real(setup_.arrivals.at(i));
  }

  SessionProcess& session_of(std::size_t i) {
    return *sessions_[static_cast<std::size_t>(setup_.instance_of.at(i))];
  }

  void send(std::size_t i, const std::string& id) {
    InvocationResult& result = results_[i];
    if (id == plans_[i].invocation.operation) {
      result.started_at = setup_.now();
      sent_at_[i] = SteadyClock::now();
    }
    id_of_[i] = id;
    plan_of_id_[id] = i;
    pending_.insert(i);
    session_of(i).send(id, plans_[i].invocation.operation, plans_[i].payload,
                       std::chrono::seconds(1));
  }

  void collect() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      const std::size_t i = *it;
      InvocationResult& result = results_[i];
      if (const auto answer = session_of(i).outcome(id_of_[i])) {
        result.outcome = answer->line;
        result.exit =
            "answered by instance " + std::to_string(setup_.instance_of.at(i) + 1) + "'s session";
        result.ended_at = setup_.now();
        it = pending_.erase(it);
        continue;
      }
      if (SteadyClock::now() >= sent_at_[i] + setup_.time_limit_real()) {
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

  // A session that ended with operations in flight: restarted, and they are sent again.
  void restart(std::size_t n) {
    const bool waited_on = std::any_of(pending_.begin(), pending_.end(), [&](std::size_t i) {
      return static_cast<std::size_t>(setup_.instance_of.at(i)) == n;
    });
    if (!waited_on) return;
    if (restarts_[n]++ >= kMostRestarts) {
      for (auto it = pending_.begin(); it != pending_.end();) {
        if (static_cast<std::size_t>(setup_.instance_of.at(*it)) != n) {
          ++it;
          continue;
        }
        results_[*it].client_error = "its session (instance " + std::to_string(n + 1) + ") ended " +
                                     std::to_string(kMostRestarts + 1) +
                                     " times before answering it";
        results_[*it].ended_at = setup_.now();
        it = pending_.erase(it);
      }
      return;
    }
    for (const std::string& id : sessions_[n]->restart()) {
      const auto found = plan_of_id_.find(id);
      if (found == plan_of_id_.end() || !pending_.contains(found->second)) continue;
      send(found->second,
           plans_[found->second].invocation.operation + "#rerun-" + std::to_string(restarts_[n]));
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
    for (std::size_t i = 0; i < results_.size(); ++i) {
      InvocationResult& result = results_[i];
      if (const auto error = errors.find(id_of_[i]); error != errors.end())
        result.client_error = error->second;
      else if (!result.outcome && !result.timed_out && result.client_error.empty())
        result.client_error = "its session printed no valid outcome line for it";
      if (!result.client_error.empty())
        result.standard_error = session_of(i).standard_error().substr(0, 4000);
    }
  }

  const std::vector<InvocationPlan>& plans_;
  const TrafficSessions& setup_;
  std::vector<InvocationResult> results_;
  std::vector<SteadyClock::time_point> sent_at_;
  std::vector<std::unique_ptr<SessionProcess>> sessions_;
  std::vector<int> restarts_;
  std::set<std::size_t> pending_;  // sent, not answered
  std::map<std::size_t, std::string> id_of_;
  std::map<std::string, std::size_t> plan_of_id_;
};

}  // namespace

std::vector<InvocationResult> run_traffic_sessions(const std::vector<InvocationPlan>& plans,
                                                   const TrafficSessions& setup) {
  return SessionFleet(plans, setup).run();
}

}  // namespace retryproof::scenarios
