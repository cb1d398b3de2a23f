#include "provider/background_worker.hpp"

#include <sys/resource.h>
#include <unistd.h>

namespace retryproof::provider {

BackgroundWorker::BackgroundWorker() : thread_([this] { run(); }) {}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    tasks_.clear();
  }
  queued_.notify_all();
  thread_.join();
}

void BackgroundWorker::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  queued_.notify_one();
}

void BackgroundWorker::run() {
  // This thread alone (Linux: a thread's nice value is its own). Lowering needs no privilege;
  // where it is refused the work runs at the usual priority, as it did before it had a thread.
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  std::unique_lock lock(mutex_);
  for (;;) {
    queued_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    if (stopping_) return;
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace retryproof::provider
