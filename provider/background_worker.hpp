// A thread that runs slow control work one task at a time at the lowest priority (nice 19):
// a judgement of a long journal (GET /_test/verdicts) takes a processor for seconds, and on a
// machine whose processors are busy it waits rather than take time from the data plane. The
// task holds no lock of the core: what it reads was copied before it was queued.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace retryproof::provider {

class BackgroundWorker {
 public:
  BackgroundWorker();
  // Runs the task under way, drops those queued, and joins: its owner stops serving first.
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  void post(std::function<void()> task);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest exists
};

}  // namespace retryproof::provider
