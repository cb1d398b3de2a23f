// The provider's log, off the hot path: a line is appended to a buffer and one writer
// thread writes the buffer to a descriptor (standard error), whole batches at a time. A
// reader that never reads must not freeze the provider, so a full buffer drops lines and
// counts them; the count is written as a line once there is room again, and at stop.
// write() never waits on the descriptor, and costs no system call while the writer works:
// the writer is woken only from its idle wait, and gathers lines between batches.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace retryproof::provider {

class LogSink {
 public:
  explicit LogSink(int fd, std::size_t capacity_lines = 4096);
  ~LogSink();  // stop()
  LogSink(const LogSink&) = delete;
  LogSink& operator=(const LogSink&) = delete;

  // Queues `line` (a newline is added), or counts it as dropped when the queue is full.
  void write(std::string_view line);

  // Writes what is queued for at most `drain_for` (a reader that never reads gets no
  // more), then the total of dropped lines if any, and joins the writer. Idempotent.
  void stop(std::chrono::milliseconds drain_for = std::chrono::milliseconds(500));

  std::uint64_t dropped() const;

 private:
  void run();
  // Writes all of `text` unless stopping and past the drain deadline. False if not.
  bool write_out(const std::string& text);
  static std::string dropped_line(std::uint64_t count, const char* when);

  const int fd_;
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable queued_;
  std::string pending_;  // the queued lines, each with its newline
  std::size_t pending_lines_ = 0;
  bool writer_idle_ = false;  // the writer waits for a first line: write() must wake it
  std::uint64_t dropped_since_report_ = 0;
  std::uint64_t dropped_total_ = 0;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point give_up_at_ = std::chrono::steady_clock::time_point::max();
  std::thread writer_;
};

}  // namespace retryproof::provider
