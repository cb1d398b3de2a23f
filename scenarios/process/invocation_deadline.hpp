// When the harness stops an invocation still running: at the scenario's time limit. At
// real time that is the limit after the client was started. At --time-scale N the limit
// lasts a Nth as long, but starting a process is real time the scale cannot compress
// (Node takes a second on a busy machine: ten at scale 10, half of a 20 s limit). So at a
// scale the limit counts from the client's first request; until that request, the client
// has the whole limit in real time, as at scale 1.
#pragma once

#include <chrono>
#include <optional>

#include "common/time_scale.hpp"

namespace retryproof::scenarios {

class InvocationDeadline {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts counting now, when the client starts.
  InvocationDeadline(Millis time_limit, TimeScale scale);

  // The deadline as of now, told whether the provider has seen the client's first request
  // yet (the first time it is told so is taken as the moment of that request).
  Clock::time_point at(bool first_request_seen);

 private:
  Millis time_limit_;
  TimeScale scale_;
  Clock::time_point started_;
  std::optional<Clock::time_point> first_request_;
};

}  // namespace retryproof::scenarios
