// A service instance's retry budget, shared by every operation its client serves: a token
// bucket in which each first attempt deposits `ratio` of a token and each retry withdraws a
// whole one, so that over time retries are at most `ratio` of first attempts, and a burst of
// at most `burst` retries is allowed from a full bucket. Below about `ratio` failures it is as
// if there were no budget; in a long outage the fleet's retries stop, and what reaches the
// service is the load arriving anyway — not (1 + retries) times it. (Brooker, "Fixing retries
// with token buckets and circuit breakers", 2022; gRPC's retryThrottling; Envoy's
// retry_budget; Google SRE's per-client 10%.) Thread-safe: a session's operations may run on
// threads of their own.
#pragma once

#include <mutex>

namespace retryproof::client {

// The defaults: Google SRE's 10% per client, and ten retries' worth to start from.
inline constexpr double kDefaultRetryRatio = 0.1;
inline constexpr double kDefaultRetryBurst = 10;

class RetryBudget {
 public:
  explicit RetryBudget(double ratio = kDefaultRetryRatio, double burst = kDefaultRetryBurst);

  void deposit();   // a first attempt was sent
  bool withdraw();  // a retry may be sent: takes a token, or says no when none is whole
  double tokens() const;
  int withheld() const;  // retries it said no to

 private:
  mutable std::mutex mutex_;
  const double ratio_;
  const double burst_;
  double tokens_;
  int withheld_ = 0;
};

}  // namespace retryproof::client
