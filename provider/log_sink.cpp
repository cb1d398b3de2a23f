#include "provider/log_sink.hpp"

#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace retryproof::provider {
namespace {

using Clock = std::chrono::steady_clock;

// How long one wait for the descriptor lasts before the writer looks at the stop flag.
constexpr std::chrono::milliseconds kPollSlice(100);
// After a batch, how long the writer lets lines gather before it takes the next one: at
// most one write() and one wake-up per pause, instead of one per request competing with
// the I/O threads for the cores. A line waits at most this long (or until stop).
constexpr std::chrono::milliseconds kGatherPause(5);

}  // namespace

LogSink::LogSink(int fd, std::size_t capacity_lines)
    : fd_(fd), capacity_(std::max<std::size_t>(1, capacity_lines)), writer_([this] { run(); }) {}

LogSink::~LogSink() {
  stop();
}

void LogSink::write(std::string_view line) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (pending_lines_ >= capacity_) {
      ++dropped_since_report_;
      ++dropped_total_;
      return;
    }
    pending_.append(line);
    pending_.push_back('\n');
    ++pending_lines_;
    wake = std::exchange(writer_idle_, false);
  }
  if (wake) queued_.notify_one();
}

std::uint64_t LogSink::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_total_;
}

void LogSink::stop(std::chrono::milliseconds drain_for) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) give_up_at_ = Clock::now() + drain_for;
    stopping_ = true;
  }
  queued_.notify_all();
  if (writer_.joinable()) writer_.join();
}

std::string LogSink::dropped_line(std::uint64_t count, const char* when) {
  return "[provider] " + std::to_string(count) + " log lines dropped " + when + "\n";
}

void LogSink::run() {
  std::string batch;  // swapped with pending_, so both keep their capacity
  std::unique_lock lock(mutex_);
  while (true) {
    writer_idle_ = pending_lines_ == 0;
    queued_.wait(lock, [this] { return stopping_ || pending_lines_ > 0; });
    writer_idle_ = false;
    if (pending_lines_ == 0 && stopping_) break;
    // Everything queued goes in one batch, which frees the queue at once; lines dropped
    // while it was full are reported right after the ones that filled it.
    batch.swap(pending_);
    pending_.clear();
    pending_lines_ = 0;
    const std::uint64_t dropped = std::exchange(dropped_since_report_, 0);
    lock.unlock();
    if (dropped > 0) batch += dropped_line(dropped, "while standard error was not read");
    const bool written = write_out(batch);
    batch.clear();
    lock.lock();
    if (!written) break;  // stopping, and the reader never made room
    // Only stop() ends the pause early: write() does not wake a writer that is not idle.
    queued_.wait_for(lock, kGatherPause, [this] { return stopping_; });
  }
  if (dropped_total_ > 0) {
    const std::string total = dropped_line(dropped_total_, "in all");
    lock.unlock();
    write_out(total);
  }
}

bool LogSink::write_out(const std::string& text) {
  for (std::size_t written = 0; written < text.size();) {
    int wait_ms = static_cast<int>(kPollSlice.count());
    {
      std::lock_guard lock(mutex_);
      if (stopping_) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(give_up_at_ - Clock::now());
        wait_ms = static_cast<int>(std::clamp<long>(left.count(), 0, kPollSlice.count()));
      }
    }
    pollfd writable{fd_, POLLOUT, 0};
    const int ready = ::poll(&writable, 1, wait_ms);
    if (ready == 0) {
      if (wait_ms == 0) return false;  // past the drain deadline
      continue;
    }
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (writable.revents & (POLLERR | POLLNVAL)) != 0) return false;
    // At most PIPE_BUF at once: a pipe that polls writable takes that much without
    // blocking, so a reader that stops reading cannot hold the writer past a deadline.
    const std::size_t size = std::min<std::size_t>(text.size() - written, PIPE_BUF);
    const ssize_t n = ::write(fd_, text.data() + written, size);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return false;  // the reader is gone (EPIPE): nothing more to say
    written += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace retryproof::provider
