// The harness's side of the session contract (docs/sessions.md): one client program per
// service instance, fed operations on its standard input while earlier ones still run,
// answering each with an outcome line tagged with the operation's id, in any order. A
// reader thread collects those lines by id and records every line that breaks the contract
// (ContractError). Every wait has a deadline, and a killed or ended process is reaped, so a
// client that hangs, floods or crashes cannot hang the harness. Any thread may call any
// member: send, close_input, kill and restart take turns, and the waits watch the reader.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "scenarios/model/outcome_line.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {

// A line of a session's standard output that breaks the contract: not a JSON object, no
// id, an id never sent, a second outcome for an id, or an outcome line that is not one.
struct ContractError {
  int instance = 0;      // the process that printed it, from 1
  std::size_t line = 0;  // its line number in that process's standard output, from 1
  std::string id;        // the id it named, when it named one
  std::string problem;   // in words
  std::string text;      // the line, cut at 200 bytes

  // "instance 1, line 3, id \"x\": an id that was never sent: {...}", for reports.
  std::string describe() const;
};

// What became of one operation sent.
struct SessionOutcome {
  OutcomeLine line;
  int instance = 0;  // the process that answered
};

class SessionProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts instance 1 of `argv` with `environment` plus RETRYPROOF_SESSION=1 and
  // RETRYPROOF_INSTANCE. `environment` holds the per-invocation contract's variables but
  // RETRYPROOF_OPERATION (std::invalid_argument if it names it). Throws std::runtime_error
  // when the program cannot be started.
  SessionProcess(std::vector<std::string> argv, std::map<std::string, std::string> environment);
  ~SessionProcess();  // kills the process if it still runs, and reaps it
  SessionProcess(const SessionProcess&) = delete;
  SessionProcess& operator=(const SessionProcess&) = delete;

  // Writes {"id","operationId","payload"} to the running instance. False if it could not
  // (the process is gone, or stopped reading for `deadline`): the id still counts as sent
  // to this instance, so restart() returns it. An id may be sent once (else
  // std::invalid_argument): a rerun of the operation goes under a new id.
  bool send(const std::string& id, const std::string& operation_id, const nlohmann::json& payload,
            std::chrono::milliseconds deadline = std::chrono::seconds(10));

  // Waits until each of `ids` has an outcome, the process has ended (no more can come), or
  // the deadline. Returns the ids still without one, in the order given.
  std::vector<std::string> wait_for_outcomes(const std::vector<std::string>& ids,
                                             Clock::time_point deadline);
  std::optional<SessionOutcome> outcome(const std::string& id) const;
  // The lines that broke the contract, in the order read (the first 1000).
  std::vector<ContractError> contract_errors() const;

  bool alive() const;    // the current instance has not ended
  int instance() const;  // the current instance's number, from 1
  void close_input();    // end of input: the instance finishes what is in flight and exits
  // Waits for the current instance to end (after close_input, say); its exit status, or
  // nothing if it still runs at the deadline.
  std::optional<ExitStatus> wait_for_exit(Clock::time_point deadline);
  // SIGKILL to the instance and what it started, then reaps it (a deadline of its own).
  void kill();
  // The same, but first SIGSTOP, to read the local ports of the TCP connections the stopped
  // processes hold (process_sockets.hpp): what the provider reads on them after the kill was
  // written by the dead process.
  std::set<int> kill_naming_connections();
  // Kills the current instance if it still runs, starts the next one, and returns the ids
  // sent to earlier instances that had no outcome, in the order sent: the caller resends
  // each under a new id, with the same operationId (a rerun).
  std::vector<std::string> restart();

  // The standard error of every instance so far, each after a "--- instance N" line.
  std::string standard_error() const;

 private:
  struct Instance;
  void start();
  void kill_current();  // with write_mutex_ held: no restart replaces the instance meanwhile
  void stop_current();
  void read_lines(Instance& instance);
  void take_line(Instance& instance, std::size_t number, const std::string& text);
  void reap(Instance& instance);

  std::vector<std::string> argv_;
  std::map<std::string, std::string> environment_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // an outcome arrived, or an instance ended
  std::map<std::string, int> sent_;  // id -> the instance it was sent to
  std::vector<std::string> sent_order_;
  std::set<std::string> returned_;  // unanswered ids restart() has returned already
  std::map<std::string, SessionOutcome> outcomes_;
  std::vector<ContractError> errors_;
  std::string earlier_errors_;  // standard error of the instances that ended
  std::unique_ptr<Instance> current_;
  int instance_number_ = 0;
  std::mutex write_mutex_;  // one line on the pipe at a time
};

}  // namespace retryproof::scenarios
