#include "client_under_test/session_client.hpp"

#include <condition_variable>
#include <deque>
#include <functional>
#include <istream>
#include <memory>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>
#include <vector>

#include "client_under_test/http_transport.hpp"
#include "client_under_test/intent_ledger.hpp"
#include "common/splitmix64.hpp"
#include "common/stable_hash.hpp"

namespace retryproof::client {
namespace {

using nlohmann::json;

// A ledger shared by every operation of the instance, one call at a time. SqliteIntentLedger
// serialises its own calls already; the in-memory one (no state dir) does not, and a lock
// here makes both safe without either knowing about threads.
class LockedLedger final : public IntentLedger {
 public:
  explicit LockedLedger(std::unique_ptr<IntentLedger> inner) : inner_(std::move(inner)) {}
  std::optional<Intent> find(const std::string& operation_id) override {
    const std::lock_guard lock(mutex_);
    return inner_->find(operation_id);
  }
  void save(const Intent& intent) override {
    const std::lock_guard lock(mutex_);
    inner_->save(intent);
  }

 private:
  std::unique_ptr<IntentLedger> inner_;
  std::mutex mutex_;
};

std::unique_ptr<IntentLedger> open_ledger(const std::string& state_dir) {
  if (state_dir.empty()) return std::make_unique<InMemoryIntentLedger>();
  return std::make_unique<SqliteIntentLedger>(std::filesystem::path(state_dir) / "intents.sqlite");
}

// What every operation of one instance shares, and nothing else: a service keeps one SDK
// client object for thousands of calls, and this is that object's state. Built once per
// session, in serve_session. Per-instance policy (a retry budget, a circuit breaker) is a
// member here, and must be safe to use from every operation's thread at once. What is not
// safe to share is made per operation in run_operation: the transport, clock and jitter.
struct InstanceState {
  explicit InstanceState(const SessionConfig& config) : ledger(open_ledger(config.state_dir)) {}

  LockedLedger ledger;
};

// Standard output, a whole line at a time and flushed, from any operation's thread.
class OutcomeWriter {
 public:
  OutcomeWriter(std::ostream& output, std::ostream& errors) : output_(output), errors_(errors) {}
  void write(const json& line) {
    const std::lock_guard lock(mutex_);
    output_ << line.dump() << std::endl;
  }
  void note(const std::string& text) {
    const std::lock_guard lock(mutex_);
    errors_ << "retryproof client --session: " << text << std::endl;
  }
  std::ostream& errors() { return errors_; }
  std::mutex& mutex() { return mutex_; }

 private:
  std::ostream& output_;
  std::ostream& errors_;
  std::mutex mutex_;
};

// Threads started as work arrives, up to `limit`; work beyond it waits in the queue.
// finish() runs what is queued to its end and joins them.
class WorkPool {
 public:
  explicit WorkPool(std::size_t limit) : limit_(std::max<std::size_t>(1, limit)) {}
  ~WorkPool() { finish(); }
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  void submit(std::function<void()> work) {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
    if (idle_ == 0 && threads_.size() < limit_) {
      threads_.emplace_back([this] { serve(); });
    } else {
      ready_.notify_one();
    }
  }

  void finish() {
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    while (true) {
      ++idle_;
      ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;  // closed, and nothing left
      std::function<void()> work = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      work();
      lock.lock();
    }
  }

  std::size_t limit_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool closed_ = false;
};

void print_history(const std::string& id, const ClientResult& result, OutcomeWriter& writer) {
  const std::lock_guard lock(writer.mutex());
  for (const Step& step : result.history) {
    writer.errors() << "[client " << id << "] #" << step.attempt << " t=" << step.at.count()
                    << "ms " << step.request << " key=" << step.key << " -> " << step.result << " ("
                    << step.classification << "): " << step.decision << '\n';
  }
}

// One operation, on its own thread: a transport, clock and jitter of its own, the
// instance's shared state. An exception is an outcome nobody can prove: unknown.
void run_operation(const SessionConfig& config, InstanceState& shared,
                   const SessionRequest& request, OutcomeWriter& writer) {
  json line;
  try {
    HttpTransport transport(config.base_url, config.scale, config.ca_file);
    SystemClock clock(config.scale);
    SeededRandom random(operation_seed(config.seed, request.id));
    RetryingClient client(config.settings, {transport, clock, clock, random, shared.ledger},
                          config.mutant);
    const ClientResult result = client.run(request.operation);
    if (config.verbose) print_history(request.id, result, writer);
    line = result.outcome_line();
  } catch (const std::exception& error) {
    writer.note(request.id + ": " + error.what());
    line = {{"outcome", "unknown"}, {"reason", std::string("client error: ") + error.what()}};
  }
  writer.write(tagged_outcome(request.id, std::move(line)));
}

std::string string_field(const json& object, const char* name, std::string& problem) {
  const auto found = object.find(name);
  if (found == object.end() || !found->is_string() || found->get_ref<const std::string&>().empty())
    problem = std::string("\"") + name + "\" must be a non-empty string";
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace

SessionLine read_session_line(const std::string& text) {
  const json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return {std::nullopt, "not JSON", {}};
  if (!parsed.is_object()) return {std::nullopt, "not a JSON object", {}};
  SessionLine line;
  std::string problem;
  line.id = string_field(parsed, "id", problem);
  if (!problem.empty()) return {std::nullopt, problem, {}};
  SessionRequest request{.id = line.id, .operation = {}};
  request.operation.operation_id = string_field(parsed, "operationId", problem);
  request.operation.payload = parsed.value("payload", json::object());
  if (problem.empty() && !request.operation.payload.is_object())
    problem = "\"payload\" must be a JSON object";
  if (!problem.empty()) return {std::nullopt, problem, line.id};
  line.request = std::move(request);
  return line;
}

std::uint64_t operation_seed(std::uint64_t session_seed, const std::string& id) {
  return SplitMix64(session_seed ^ stable_hash(id)).next();
}

json tagged_outcome(const std::string& id, json outcome_line) {
  outcome_line["id"] = id;
  return outcome_line;
}

int serve_session(const SessionConfig& config, std::istream& input, std::ostream& output,
                  std::ostream& errors) {
  OutcomeWriter writer(output, errors);
  std::unique_ptr<InstanceState> shared;
  try {
    shared = std::make_unique<InstanceState>(config);
  } catch (const std::exception& error) {
    writer.note(error.what());
    return 1;
  }
  std::set<std::string> seen;
  WorkPool pool(config.max_in_flight);
  std::string text;
  for (std::size_t number = 1; std::getline(input, text); ++number) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    SessionLine line = read_session_line(text);
    const std::string where = "input line " + std::to_string(number);
    if (!line.id.empty() && !seen.insert(line.id).second) {
      writer.note(where + ": the id \"" + line.id + "\" was sent before; ids tag one line each");
      continue;
    }
    if (!line.request) {
      writer.note(where + ": " + line.problem + " (" + text.substr(0, 200) + ")");
      if (!line.id.empty()) {
        writer.write(tagged_outcome(
            line.id, {{"outcome", "failed"}, {"reason", "malformed operation: " + line.problem}}));
      }
      continue;
    }
    pool.submit([&config, &shared, &writer, request = std::move(*line.request)] {
      run_operation(config, *shared, request, writer);
    });
  }
  pool.finish();  // end of input: what is in flight finishes and is answered
  return 0;
}

}  // namespace retryproof::client
