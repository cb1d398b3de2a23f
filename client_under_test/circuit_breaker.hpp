// A service instance's circuit breaker, shared by every operation its client serves. After
// `failures` failed requests in a row it opens: the instance sends nothing, and an operation
// that arrives fails at once, without a request. After `open_for` one request is let through
// as a probe (half-open); its success closes the breaker, its failure opens it again. So in a
// long outage an instance sends a probe every `open_for` instead of every operation spending
// its retries — the load a failing service sees stops growing with the traffic — and once the
// service is back, the first probe's success lets the traffic through again. (Nygard, Release
// It!; cockatiel's ConsecutiveBreaker and halfOpenAfter; resilience4j.) Thread-safe: a
// session's operations run on threads of their own. Time comes from the caller's clock.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "common/millis.hpp"

namespace retryproof::client {

struct BreakerSettings {
  int failures = 5;       // failed requests in a row that open it
  Millis open_for{2000};  // how long it stays open before it lets a probe through

  // "5/2s"
  std::string describe() const;
  friend bool operator==(const BreakerSettings&, const BreakerSettings&) = default;
};

// "5/2s" or "5/2000ms": failures from 1 to 1000, then how long it stays open (at least 1 ms).
// Throws std::invalid_argument saying what is expected.
BreakerSettings parse_breaker(std::string_view text);

// The reference client's, wherever instances serve many operations: open after five failures
// in a row, as cockatiel's README's ConsecutiveBreaker(5), and probe every 2 s — short enough
// that a fleet is back within a scenario's recoverWithin once the service is.
inline constexpr BreakerSettings kDefaultBreaker{};

// The bugs a breaker can have (the never-probes and never-closes mutants).
enum class BreakerFlaw {
  none,
  never_probes,  // once open, it never lets a probe through: the instance stays cut off
  never_closes,  // a probe's success does not close it: it lets a probe through, and no more
};

// What the breaker says to a request an operation is about to send.
enum class Admission {
  send,    // closed: send it
  probe,   // half-open: send it, as the one probe
  refuse,  // open, or a probe is already out: send nothing
};

// How a request the breaker admitted ended, for it: the service failed it (a 5xx, a 429, no
// answer), or the service answered it (any other status, a 404 or a 422 among them).
enum class Answered { failed, served };

class CircuitBreaker {
 public:
  explicit CircuitBreaker(BreakerSettings settings = kDefaultBreaker,
                          BreakerFlaw flaw = BreakerFlaw::none);

  Admission admit(Millis now);
  void record(Answered answer, Millis now);
  // A probe admitted but not sent (the instance's budget withheld it): open again as it was,
  // so that the next operation may send the probe.
  void release_probe();
  bool open() const;   // open or half-open, for tests and histories
  int opened() const;  // how many times it has opened

 private:
  enum class State { closed, open, half_open };
  void open_at(Millis now);  // under mutex_

  mutable std::mutex mutex_;
  const BreakerSettings settings_;
  const BreakerFlaw flaw_;
  State state_ = State::closed;
  int in_a_row_ = 0;
  Millis opened_at_{0};
  int opened_ = 0;
};

}  // namespace retryproof::client
