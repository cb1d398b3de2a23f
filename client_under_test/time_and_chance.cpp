#include "client_under_test/time_and_chance.hpp"

#include <thread>

namespace retryproof::client {

Millis SystemClock::now() {
  return scale_.to_scaled(std::chrono::steady_clock::now().time_since_epoch());
}

void SystemClock::sleep(Millis duration) {
  std::this_thread::sleep_for(scale_.to_real(duration));
}

}  // namespace retryproof::client
