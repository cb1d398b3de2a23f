// Compressed time (`--time-scale N`): a scenario's clock running N times faster than the
// real one. The provider's clock, its holds, the scenario's time limits and the client's
// clock all count in scenario time; this is the one place that converts between it and
// the real time a thread waits or a steady clock measures, so that no part multiplies on
// its own. Scale 1 is real time.
#pragma once

#include <chrono>

#include "common/millis.hpp"

namespace retryproof {

class TimeScale {
 public:
  // Beyond this, real overheads (starting a process, a reconnect, a busy scheduler) would
  // count for seconds of scenario time and change what clients do.
  static constexpr int kMaxFactor = 100;

  constexpr TimeScale() = default;
  // Throws std::invalid_argument unless 1 <= factor <= kMaxFactor.
  explicit TimeScale(int factor);

  int factor() const { return factor_; }
  bool is_real_time() const { return factor_ == 1; }

  // The real time to wait for `scaled` to pass in scenario time.
  std::chrono::microseconds to_real(Millis scaled) const {
    return std::chrono::duration_cast<std::chrono::microseconds>(scaled) / factor_;
  }
  // What a real interval measures in scenario time.
  Millis to_scaled(std::chrono::nanoseconds real) const {
    return std::chrono::duration_cast<Millis>(real * factor_);
  }

  friend bool operator==(const TimeScale&, const TimeScale&) = default;

 private:
  int factor_ = 1;
};

}  // namespace retryproof
