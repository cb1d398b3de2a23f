#include "client_under_test/time_and_chance.hpp"

#include <thread>

namespace retryproof::client {

Millis SystemClock::now() {
  return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now().time_since_epoch());
}

void SystemClock::sleep(Millis duration) {
  std::this_thread::sleep_for(duration);
}

}  // namespace retryproof::client
