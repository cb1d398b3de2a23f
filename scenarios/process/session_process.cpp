#include "scenarios/process/session_process.hpp"

#include <signal.h>

#include <atomic>
#include <stdexcept>
#include <utility>

#include "scenarios/process/process_sockets.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// How soon the reader notices that it is asked to stop, or that the process ended while
// something it started still holds its standard output open. Lines are read as they come.
constexpr milliseconds kSlice(100);
// How long a killed process may take to be reaped before it is left to ~ChildProcess.
constexpr std::chrono::seconds kReapLimit(10);
// A client that floods its output with garbage is reported, up to this many lines.
constexpr std::size_t kMaxContractErrors = 1000;

std::string cut(const std::string& text) {
  return text.size() <= 200 ? text : text.substr(0, 200);
}

}  // namespace

std::string ContractError::describe() const {
  std::string where = "instance " + std::to_string(instance) + ", line " + std::to_string(line);
  if (!id.empty()) where += ", id \"" + id + "\"";
  return where + ": " + problem + ": " + text;
}

// One process of the session. The reader thread owns the ChildProcess's output and its
// reaping; other threads only write its input (under write_mutex_) and signal it (under
// mutex_, as reaping is, so that a signal never reaches a reaped process's reused pid).
struct SessionProcess::Instance {
  int number = 0;
  std::unique_ptr<ChildProcess> child;
  std::thread reader;
  std::atomic<bool> stopping{false};
  // Guarded by mutex_:
  bool answering = true;  // its standard output is open: outcomes may still come
  bool ended = false;     // reaped, every line taken
  std::optional<ExitStatus> status;
  std::string standard_error;
};

SessionProcess::SessionProcess(std::vector<std::string> argv,
                               std::map<std::string, std::string> environment)
    : argv_(std::move(argv)), environment_(std::move(environment)) {
  if (environment_.contains("RETRYPROOF_OPERATION")) {
    throw std::invalid_argument(
        "a session is given its operations on standard input: drop RETRYPROOF_OPERATION from "
        "its environment");
  }
  start();
}

SessionProcess::~SessionProcess() {
  const std::lock_guard writing(write_mutex_);
  stop_current();
}

void SessionProcess::start() {
  int number = 0;
  {
    const std::lock_guard lock(mutex_);
    number = ++instance_number_;
  }
  std::map<std::string, std::string> environment = environment_;
  environment["RETRYPROOF_SESSION"] = "1";
  environment["RETRYPROOF_INSTANCE"] = std::to_string(number);
  auto instance = std::make_unique<Instance>();
  instance->number = number;
  instance->child = std::make_unique<ChildProcess>(argv_, environment, StandardInput::pipe);
  Instance& started = *instance;
  {
    const std::lock_guard lock(mutex_);
    current_ = std::move(instance);
  }
  started.reader = std::thread([this, &started] { read_lines(started); });
}

void SessionProcess::read_lines(Instance& instance) {
  ChildProcess& child = *instance.child;
  std::size_t number = 0;
  std::size_t shared_stderr = 0;
  const auto share_stderr = [&] {  // what it wrote since the last time: a long log is not copied
    if (child.standard_error().size() == shared_stderr) return;
    const std::lock_guard lock(mutex_);
    instance.standard_error.append(child.standard_error(), shared_stderr);
    shared_stderr = child.standard_error().size();
  };
  while (!instance.stopping && child.output_open() && !child.await_end(milliseconds(0))) {
    if (const auto line = child.read_line(kSlice)) take_line(instance, ++number, *line);
    share_stderr();
  }
  // The lines read but not taken yet; once its output has ended, a last line left without
  // its newline too, which is still its word.
  bool last_taken = false;
  const auto take_read_lines = [&] {
    while (const auto line = child.read_line(milliseconds(0)))
      take_line(instance, ++number, *line);
    const std::string& output = child.standard_output();
    if (child.output_open() || last_taken || output.empty() || output.back() == '\n') return;
    last_taken = true;
    const std::size_t newline = output.rfind('\n');
    take_line(instance, ++number, output.substr(newline == std::string::npos ? 0 : newline + 1));
  };
  take_read_lines();
  if (!child.output_open()) {  // every line it will ever print is taken: it cannot answer now
    {
      const std::lock_guard lock(mutex_);
      instance.answering = false;
    }
    changed_.notify_all();
  }
  reap(instance);
  take_read_lines();  // what it wrote before it ended, read while reaping
  share_stderr();
  {
    const std::lock_guard lock(mutex_);
    instance.answering = false;
    instance.ended = true;
  }
  changed_.notify_all();
}

void SessionProcess::reap(Instance& instance) {
  std::optional<Clock::time_point> stop_asked;
  while (true) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto status = instance.child->wait(milliseconds(0))) {
        instance.status = status;
        return;
      }
    }
    if (instance.stopping && !stop_asked) stop_asked = Clock::now();
    if (stop_asked && Clock::now() - *stop_asked > kReapLimit) return;
    instance.child->await_end(kSlice);
  }
}

void SessionProcess::take_line(Instance& instance, std::size_t number, const std::string& text) {
  ContractError error{.instance = instance.number, .line = number, .text = cut(text)};
  const json parsed = json::parse(text, nullptr, false);
  std::optional<OutcomeLine> line;
  const std::lock_guard lock(mutex_);
  if (!parsed.is_object()) {
    error.problem = "not a JSON object";
  } else if (!parsed.contains("id") || !parsed["id"].is_string()) {
    error.problem = "an outcome line without its \"id\" (a string)";
  } else {
    error.id = parsed["id"].get<std::string>();
    const auto sent = sent_.find(error.id);
    OutcomeReading reading = outcome_line_of(parsed);
    if (sent == sent_.end()) {
      error.problem = "an id that was never sent";
    } else if (sent->second != instance.number) {
      error.problem = "an id sent to instance " + std::to_string(sent->second);
    } else if (outcomes_.contains(error.id)) {
      error.problem = "a second outcome for this id";
    } else if (!reading.line) {
      error.problem = reading.problem;
    } else {
      outcomes_.emplace(error.id, SessionOutcome{std::move(*reading.line), instance.number});
      changed_.notify_all();
      return;
    }
  }
  if (errors_.size() < kMaxContractErrors) errors_.push_back(std::move(error));
}

bool SessionProcess::send(const std::string& id, const std::string& operation_id,
                          const json& payload, milliseconds deadline) {
  const std::lock_guard writing(write_mutex_);
  Instance* instance = nullptr;
  {
    const std::lock_guard lock(mutex_);
    if (sent_.contains(id))
      throw std::invalid_argument("session: the id \"" + id + "\" was sent already");
    sent_.emplace(id, current_->number);
    sent_order_.push_back(id);
    instance = current_.get();
  }
  const json line = {{"id", id}, {"operationId", operation_id}, {"payload", payload}};
  return instance->child->write_line(line.dump(), deadline);
}

std::vector<std::string> SessionProcess::wait_for_outcomes(const std::vector<std::string>& ids,
                                                           Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  // An id may still be answered while the instance it was sent to is the current one and
  // its output is open.
  const auto missing = [&] {
    std::vector<std::string> left;
    bool answerable = false;
    for (const std::string& id : ids) {
      if (outcomes_.contains(id)) continue;
      left.push_back(id);
      const auto sent = sent_.find(id);
      if (sent != sent_.end() && current_ && sent->second == current_->number &&
          current_->answering)
        answerable = true;
    }
    return std::pair(left, answerable);
  };
  changed_.wait_until(lock, deadline, [&] { return !missing().second; });
  return missing().first;
}

std::optional<SessionOutcome> SessionProcess::outcome(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  const auto found = outcomes_.find(id);
  if (found == outcomes_.end()) return std::nullopt;
  return found->second;
}

std::vector<ContractError> SessionProcess::contract_errors() const {
  const std::lock_guard lock(mutex_);
  return errors_;
}

bool SessionProcess::alive() const {
  const std::lock_guard lock(mutex_);
  return current_ && !current_->ended;
}

int SessionProcess::instance() const {
  const std::lock_guard lock(mutex_);
  return instance_number_;
}

void SessionProcess::close_input() {
  const std::lock_guard writing(write_mutex_);
  if (current_) current_->child->close_input();
}

std::optional<ExitStatus> SessionProcess::wait_for_exit(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  if (!current_) return std::nullopt;
  changed_.wait_until(lock, deadline, [&] { return !current_ || current_->ended; });
  return current_ && current_->ended ? current_->status : std::nullopt;
}

void SessionProcess::kill() {
  const std::lock_guard writing(write_mutex_);
  kill_current();
}

std::set<int> SessionProcess::kill_naming_connections() {
  const std::lock_guard writing(write_mutex_);
  std::set<int> ports;
  {
    const std::lock_guard lock(mutex_);
    if (current_ && !current_->status) {
      current_->child->send_signal(SIGSTOP);
      ports = tcp_ports_of_group(current_->child->pid());
    }
  }
  kill_current();
  return ports;
}

void SessionProcess::kill_current() {
  {
    const std::lock_guard lock(mutex_);
    if (!current_ || current_->status) return;
    current_->child->send_signal(SIGKILL);
  }
  wait_for_exit(Clock::now() + kReapLimit);
}

void SessionProcess::stop_current() {
  if (!current_) return;
  kill_current();
  current_->stopping = true;
  current_->reader.join();
  std::unique_ptr<Instance> ended;
  {
    const std::lock_guard lock(mutex_);
    earlier_errors_ += "--- instance " + std::to_string(current_->number) + " (" +
                       (current_->status ? current_->status->describe() : "not reaped") + ")\n" +
                       current_->standard_error;
    ended = std::move(current_);
  }
  ended.reset();  // ~ChildProcess kills and reaps what the reader could not
}

std::vector<std::string> SessionProcess::restart() {
  const std::lock_guard writing(write_mutex_);
  stop_current();
  std::vector<std::string> unanswered;
  {
    const std::lock_guard lock(mutex_);
    for (const std::string& id : sent_order_) {
      if (!outcomes_.contains(id) && returned_.insert(id).second) unanswered.push_back(id);
    }
  }
  start();
  return unanswered;
}

std::string SessionProcess::standard_error() const {
  const std::lock_guard lock(mutex_);
  std::string all = earlier_errors_;
  if (current_)
    all += "--- instance " + std::to_string(current_->number) + "\n" + current_->standard_error;
  return all;
}

}  // namespace retryproof::scenarios
