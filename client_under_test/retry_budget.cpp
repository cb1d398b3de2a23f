#include "client_under_test/retry_budget.hpp"

#include <algorithm>
#include <stdexcept>

namespace retryproof::client {

RetryBudget::RetryBudget(double ratio, double burst)
    : ratio_(ratio), burst_(burst), tokens_(burst) {
  if (ratio <= 0 || ratio > 1)
    throw std::invalid_argument("a retry ratio is above 0 and at most 1");
  if (burst < 1) throw std::invalid_argument("a retry budget holds at least one retry");
}

void RetryBudget::deposit() {
  std::lock_guard lock(mutex_);
  tokens_ = std::min(burst_, tokens_ + ratio_);
}

bool RetryBudget::withdraw() {
  std::lock_guard lock(mutex_);
  // A little under one counts as one: ten deposits of 0.1 add up to 0.9999999999999999.
  if (tokens_ < 1 - 1e-9) {
    ++withheld_;
    return false;
  }
  tokens_ = std::max(0.0, tokens_ - 1);
  return true;
}

double RetryBudget::tokens() const {
  std::lock_guard lock(mutex_);
  return tokens_;
}

int RetryBudget::withheld() const {
  std::lock_guard lock(mutex_);
  return withheld_;
}

}  // namespace retryproof::client
