// A session client in a few lines of C++ (docs/sessions.md): retryproof starts your program
// once per service instance and sends it operations on standard input; serve() reads them,
// runs each on a thread of its own (at most `max_in_flight` at once, more wait), and writes
// each answer, tagged with its operation's id, as soon as it is done.
//
//   #include "embed/cpp/session.hpp"
//   int main() {
//     Orders orders(std::getenv("RETRYPROOF_BASE_URL"));  // one SDK client for every call
//     return retryproof::session::serve([&](const retryproof::session::Operation& op) {
//       return retryproof::session::succeeded(orders.create(op.operation_id, op.payload));
//     });
//   }
//
// Header-only, over nlohmann/json and the standard library. A handler that throws answers
// `unknown` (nobody can prove what happened); a line that cannot be read is named on
// standard error, and answered `failed` when its id could be read.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace retryproof::session {

// One line of standard input: the tag of the answer, and the operation.
struct Operation {
  std::string id;            // tags the answer; unique per line
  std::string operation_id;  // the business identity: derive the idempotency key from it
  nlohmann::json payload;    // a JSON object
};

// What the handler returns: an outcome line of the per-invocation contract.
inline nlohmann::json succeeded(const std::string& job_id) {
  return {{"outcome", "succeeded"}, {"jobId", job_id}};
}
inline nlohmann::json failed(const std::string& reason) {
  return {{"outcome", "failed"}, {"reason", reason}};
}
inline nlohmann::json unknown(const std::string& reason) {
  return {{"outcome", "unknown"}, {"reason", reason}};
}

using Handler = std::function<nlohmann::json(const Operation&)>;

struct Options {
  std::size_t max_in_flight = 64;
  std::istream* input = &std::cin;
  std::ostream* output = &std::cout;
  std::ostream* errors = &std::cerr;
};

namespace detail {

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

// Standard output a whole line at a time, flushed; standard error likewise.
class Lines {
 public:
  explicit Lines(const Options& options) : options_(options) {}
  void answer(const std::string& id, nlohmann::json line) {
    line["id"] = id;
    // A reason quoting bytes that are not UTF-8 (a provider's garbled answer) is still a line.
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    const std::lock_guard lock(mutex_);
    *options_.output << text << std::endl;
  }
  void note(const std::string& text) {
    const std::lock_guard lock(mutex_);
    *options_.errors << "session: " << text << std::endl;
  }

 private:
  const Options& options_;
  std::mutex mutex_;
};

inline std::string string_field(const nlohmann::json& object, const char* name,
                                std::string& problem) {
  const auto found = object.find(name);
  if (found != object.end() && found->is_string() && !found->get_ref<const std::string&>().empty())
    return found->get<std::string>();
  if (problem.empty()) problem = std::string("\"") + name + "\" must be a non-empty string";
  return {};
}

// An operation from its line, or `problem` (and the id, when one could be read).
inline Operation read_operation(const std::string& text, std::string& problem) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  Operation operation;
  if (!parsed.is_object()) {
    problem = parsed.is_discarded() ? "not JSON" : "not a JSON object";
    return operation;
  }
  operation.id = string_field(parsed, "id", problem);
  if (!problem.empty()) return operation;
  operation.operation_id = string_field(parsed, "operationId", problem);
  operation.payload = parsed.value("payload", nlohmann::json::object());
  if (problem.empty() && !operation.payload.is_object())
    problem = "\"payload\" must be a JSON object";
  return operation;
}

inline void run(const Handler& handler, const Operation& operation, Lines& lines) {
  nlohmann::json line;
  try {
    line = handler(operation);
  } catch (const std::exception& error) {
    lines.note(operation.id + ": " + error.what());
    line = unknown(std::string("client error: ") + error.what());
  } catch (...) {
    lines.note(operation.id + ": an exception that is not a std::exception");
    line = unknown("client error");
  }
  lines.answer(operation.id, std::move(line));
}

}  // namespace detail

// Serves standard input until it ends, then finishes the operations in flight. Returns 0,
// the exit status of a session that ended as it should.
inline int serve(const Handler& handler, const Options& options = {}) {
  detail::Lines lines(options);
  std::set<std::string> seen;
  detail::WorkPool pool(options.max_in_flight);
  std::string text;
  for (std::size_t number = 1; std::getline(*options.input, text); ++number) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string problem;
    Operation operation = detail::read_operation(text, problem);
    const std::string where = "input line " + std::to_string(number) + ": ";
    if (!operation.id.empty() && !seen.insert(operation.id).second) {
      lines.note(where + "the id \"" + operation.id + "\" was sent before; ids tag one line each");
    } else if (!problem.empty()) {
      lines.note(where + problem + " (" + text.substr(0, 200) + ")");
      if (!operation.id.empty())
        lines.answer(operation.id, failed("malformed operation: " + problem));
    } else {
      pool.submit([&handler, &lines, operation = std::move(operation)] {
        detail::run(handler, operation, lines);
      });
    }
  }
  pool.finish();  // end of input: what is in flight finishes and is answered
  return 0;
}

}  // namespace retryproof::session
