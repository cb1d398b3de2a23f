#include "provider/connection_budget.hpp"

#include <utility>

namespace retryproof::provider {

ConnectionBudget::Slot::Slot(Slot&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), admission_(other.admission_) {}

ConnectionBudget::Slot& ConnectionBudget::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::exchange(other.budget_, nullptr);
    admission_ = other.admission_;
  }
  return *this;
}

ConnectionBudget::Slot::~Slot() {
  release();
}

void ConnectionBudget::Slot::release() {
  if (budget_ != nullptr) std::exchange(budget_, nullptr)->give_back(admission_);
}

ConnectionBudget::Slot ConnectionBudget::admit() {
  std::lock_guard lock(mutex_);
  if (open_any_ < max_connections_) {
    ++open_any_;
    return Slot(this, Admission::any_request);
  }
  if (open_control_ < reserved_for_control_) {
    ++open_control_;
    return Slot(this, Admission::control_only);
  }
  return {};
}

std::size_t ConnectionBudget::open() const {
  std::lock_guard lock(mutex_);
  return open_any_ + open_control_;
}

bool ConnectionBudget::wait_until_empty(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  return emptied_.wait_until(lock, deadline, [this] { return open_any_ + open_control_ == 0; });
}

void ConnectionBudget::give_back(Admission admission) {
  std::lock_guard lock(mutex_);
  --(admission == Admission::any_request ? open_any_ : open_control_);
  if (open_any_ + open_control_ == 0) emptied_.notify_all();
}

}  // namespace retryproof::provider
