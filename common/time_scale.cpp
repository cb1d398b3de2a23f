#include "common/time_scale.hpp"

#include <stdexcept>
#include <string>

namespace retryproof {

TimeScale::TimeScale(int factor) : factor_(factor) {
  if (factor < 1 || factor > kMaxFactor) {
    throw std::invalid_argument("time scale " + std::to_string(factor) +
                                ": give a whole number from 1 (real time) to " +
                                std::to_string(kMaxFactor));
  }
}

}  // namespace retryproof
