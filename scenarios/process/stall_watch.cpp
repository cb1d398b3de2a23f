#include "scenarios/process/stall_watch.hpp"

#include <iostream>

#include "scenarios/evidence/stalls.hpp"

namespace retryproof::scenarios {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often the timer is due: fine enough to see a stall of kStallThreshold well, cheap
// enough to cost nothing a client would notice (a wake every 10 ms).
constexpr std::chrono::milliseconds kTick{10};

std::int64_t whole_ms(std::chrono::nanoseconds late) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(late).count();
}

}  // namespace

StallWatch::StallWatch(std::function<Millis()> now, TimeScale scale, std::string scenario)
    : now_(std::move(now)),
      scale_(scale),
      scenario_(std::move(scenario)),
      thread_([this](const std::stop_token& stop) { watch(stop); }) {}

StallWatch::~StallWatch() {
  stop();
}

void StallWatch::watch(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    const auto due = SteadyClock::now() + kTick;
    wake_.wait_until(lock, stop, due, [] { return false; });
    if (stop.stop_requested()) return;
    const auto late = SteadyClock::now() - due;
    if (late < kStallThreshold) continue;
    lock.unlock();
    record(late, "its own timer woke " + std::to_string(whole_ms(late)) + " ms late");
    lock.lock();
  }
}

void StallWatch::record(std::chrono::nanoseconds late, std::string what) {
  const Millis until = now_();
  const Stall stall{std::max(Millis{0}, until - scale_.to_scaled(late)), until, std::move(what)};
  if (late >= kStoppedThreshold) {
    std::cerr << "retryproof: the harness was stopped or starved for " << whole_ms(late)
              << " ms during " << scenario_
              << " (a SIGSTOP, a VM pause or an overloaded machine); what rests on time in "
                 "that window is inconclusive, not blamed on the client\n";
  }
  std::lock_guard lock(mutex_);
  stalls_.push_back(stall);
}

void StallWatch::started_late(const std::string& what, std::chrono::nanoseconds late) {
  if (late < kStallThreshold) return;
  record(late, what + " started " + std::to_string(whole_ms(late)) + " ms late");
}

std::vector<Stall> StallWatch::stop() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return stalls_;
}

}  // namespace retryproof::scenarios
