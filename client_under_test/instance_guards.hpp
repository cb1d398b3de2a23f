// What one service instance's client keeps across every operation it serves, to protect the
// service from the instance's own retries: a retry budget (retry_budget.hpp) and a circuit
// breaker (circuit_breaker.hpp). A world that runs instances (the simulation under traffic, a
// session) builds one per instance and hands it to every operation's RetryingClient; a client
// started per operation has none, as a fresh process has a full bucket and a closed breaker.
#pragma once

#include "client_under_test/circuit_breaker.hpp"
#include "client_under_test/mutant.hpp"
#include "client_under_test/retry_budget.hpp"

namespace retryproof::client {

struct InstanceGuards {
  // The reference client's guards, or those of a mutant whose breaker has a bug.
  explicit InstanceGuards(Mutant mutant = Mutant::none)
      : breaker(kDefaultBreaker, row_of(mutant).behaviour.breaker_flaw) {}

  RetryBudget budget;
  CircuitBreaker breaker;
};

}  // namespace retryproof::client
