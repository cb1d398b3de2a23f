#include "scenarios/process/invocation_deadline.hpp"

namespace retryproof::scenarios {

InvocationDeadline::InvocationDeadline(Millis time_limit, TimeScale scale)
    : time_limit_(time_limit), scale_(scale), started_(Clock::now()) {}

InvocationDeadline::Clock::time_point InvocationDeadline::at(bool first_request_seen) {
  if (scale_.is_real_time()) return started_ + time_limit_;
  if (first_request_seen && !first_request_) first_request_ = Clock::now();
  if (!first_request_) return started_ + time_limit_;
  return *first_request_ + scale_.to_real(time_limit_);
}

}  // namespace retryproof::scenarios
