// The harness measures its own lateness while a scenario runs: a thread whose timer is due
// every few milliseconds records each wake at least kStallThreshold late (stalls.hpp), on the
// provider's clock, so that the verdicts can tell the machine's share from the client's. A
// harness that was stopped (SIGSTOP, a VM pause) notices on resuming, and says so at once on
// standard error. The world that starts clients also reports those it started late.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/time_scale.hpp"
#include "scenarios/driver/run_result.hpp"

namespace retryproof::scenarios {

class StallWatch {
 public:
  // `now` reads the provider's clock (scenario time); `scenario` names the run in messages.
  StallWatch(std::function<Millis()> now, TimeScale scale, std::string scenario);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // A client the world started `late` of real time after it was due: a stall if that is
  // at least kStallThreshold.
  void started_late(const std::string& what, std::chrono::nanoseconds late);
  // Stops watching; the stalls it saw, in order.
  std::vector<Stall> stop();

 private:
  void watch(const std::stop_token& stop);
  void record(std::chrono::nanoseconds late, std::string what);

  std::function<Millis()> now_;
  TimeScale scale_;
  std::string scenario_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::vector<Stall> stalls_;
  std::jthread thread_;
};

}  // namespace retryproof::scenarios
