// How many connections the server holds, and what each may do: the first
// `max_connections` serve anything, the next `reserved_for_control` only control-plane
// requests, and any beyond are refused at once. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace retryproof::provider {

enum class Admission { any_request, control_only, refused };

class ConnectionBudget {
 public:
  ConnectionBudget(std::size_t max_connections, std::size_t reserved_for_control)
      : max_connections_(max_connections), reserved_for_control_(reserved_for_control) {}

  // A connection's place in the budget, given back when it is destroyed.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();
    Admission admission() const { return admission_; }

   private:
    friend class ConnectionBudget;
    Slot(ConnectionBudget* budget, Admission admission) : budget_(budget), admission_(admission) {}
    void release();

    ConnectionBudget* budget_ = nullptr;
    Admission admission_ = Admission::refused;
  };

  Slot admit();
  std::size_t open() const;
  // Waits until no slot is held; false if `deadline` passes first.
  bool wait_until_empty(std::chrono::steady_clock::time_point deadline) const;

 private:
  void give_back(Admission admission);

  const std::size_t max_connections_;
  const std::size_t reserved_for_control_;
  mutable std::mutex mutex_;
  mutable std::condition_variable emptied_;
  std::size_t open_any_ = 0;      // seats for any request
  std::size_t open_control_ = 0;  // reserved seats
};

}  // namespace retryproof::provider
