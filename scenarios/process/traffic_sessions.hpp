// Open-loop traffic (or a fleet, under `run --sessions`) over real processes: one session per
// service instance (the session
// contract, docs/sessions.md), each operation sent to its instance when it arrives, whether
// or not earlier ones have finished, and its outcome read back by its id. A session that ends
// before its operations are answered is restarted, as a supervisor would restart a service,
// and what it had not answered is sent to the new process again under a new id (a rerun of
// the operation). Requests are charged to operations by what they carry, never by connection
// (scenarios/driver/attribution.hpp, charged_by_operation): a session's operations share its
// connections.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/millis.hpp"
#include "common/time_scale.hpp"
#include "scenarios/driver/driver.hpp"
#include "scenarios/model/traffic.hpp"
#include "scenarios/process/stall_watch.hpp"

namespace retryproof::scenarios {

struct TrafficSessions {
  std::vector<std::string> argv;                   // the session program
  std::map<std::string, std::string> environment;  // the contract's, without the operation
  int instances = 1;
  std::filesystem::path state_dir;  // each instance keeps its state in instance-N below it
  std::uint64_t seed = 0;           // instance n gets seed + n
  TimeScale time_scale;
  Millis time_limit{20000};           // per operation, from its sending
  std::function<Millis()> now;        // the provider's clock
  StallWatch* stall_watch = nullptr;  // told how late each operation was sent
  // By plan: when it is sent, from the first's sending (scenario time), and the instance
  // (from 0) that serves it.
  std::vector<Millis> arrivals;
  std::vector<int> instance_of;
  // By instance, when each has a listener of its own (its requests are then charged by port,
  // whatever they carry): the port, and the base URL that reaches it.
  std::vector<int> ports;
  std::function<std::string(int port)> base_url_of;
  // The scenario's kills of instances under traffic, by when on the provider's clock: each
  // SIGKILLs its instance at its time, or at the first moment after it that the instance has
  // an operation unanswered; the instance is restarted, and each operation it had not
  // answered is rerun as a result of its own (InvocationResult::rerun_of), begun at
  // `journal_size() + 1`.
  std::vector<InstanceKill> kills;
  std::function<std::uint64_t()> journal_size;

  std::chrono::microseconds time_limit_real() const { return time_scale.to_real(time_limit); }
};

// Each plan's operation, sent at its arrival to its instance. Results in the plans' order,
// without ports, then each rerun after a kill, in the order they were sent.
std::vector<InvocationResult> run_traffic_sessions(const std::vector<InvocationPlan>& plans,
                                                   const TrafficSessions& setup);

}  // namespace retryproof::scenarios
