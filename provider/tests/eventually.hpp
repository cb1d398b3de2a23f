// Waiting on a condition with a deadline, for tests that watch a server from outside.
#pragma once

#include <chrono>
#include <thread>

namespace retryproof::provider::testing {

// Checks `condition` until it holds (true) or `deadline` passes (false). Between checks
// it yields the processor for a millisecond: a poll with a deadline, not a timing guess.
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds deadline = std::chrono::seconds(5)) {
  const auto give_up_at = std::chrono::steady_clock::now() + deadline;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= give_up_at) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace retryproof::provider::testing
