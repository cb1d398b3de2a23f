// The reference retry-safe client: one logical operation, one idempotency key derived
// before the first attempt, the same payload every time, bounded retries with jittered
// backoff for failures known to be pre-commit, and a lookup by key after any outcome it
// could not see. It fails closed: when the provider cannot prove what happened, the
// outcome is `unknown`, never a guess.
//
// A state machine over injected parts: plan → attempt → classify → backoff | reconcile
// | done. No function here reads the wall clock or sleeps except through them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client_under_test/circuit_breaker.hpp"
#include "client_under_test/intent_ledger.hpp"
#include "client_under_test/mutant.hpp"
#include "client_under_test/retry_budget.hpp"
#include "client_under_test/time_and_chance.hpp"
#include "client_under_test/transport.hpp"

namespace retryproof::client {

struct GuardRefusal;  // what an instance's guard says when it withholds a request

struct ClientSettings {
  int attempts = 3;        // total POSTs, as retry="3": three requests at most
  Millis base_delay{200};  // the first backoff step
  Millis max_delay{5000};  // the cap of any step
  Millis timeout{2000};    // per request
};

struct Operation {
  std::string operation_id;  // durable business identity: "fulfillment:order-42"
  nlohmann::json payload;    // a JSON object
};

enum class ClientOutcome { succeeded, failed, unknown };
std::string to_string(ClientOutcome outcome);

// One line of the attempt history: a request, what came back, and what was decided.
struct Step {
  int attempt = 0;             // the POST's number, from 1; lookups carry the last one
  Millis at{0};                // the client's clock when the request was sent
  std::string request;         // "POST /jobs" or "GET /jobs/by-idempotency-key/..."
  std::string key;             // the idempotency key it named
  std::string result;          // "201", "503", "timeout", "closed", "truncated", ...
  std::string classification;  // confirmed, retryable, rate-limited, in-flight, definitive,
                               // ambiguous, found, not-found, lookup-failed
  std::string decision;        // what the client does next, in words
  Millis wait{0};              // how long it waited before its next request
};

struct ClientResult {
  ClientOutcome outcome = ClientOutcome::unknown;
  std::string job_id;           // when succeeded
  std::string reason;           // when failed or unknown
  std::string idempotency_key;  // the (last) key used
  int attempts = 0;             // POSTs sent in this run
  std::vector<Step> history;

  // The external-client contract's outcome line: {"outcome":"succeeded","jobId":"..."}.
  nlohmann::json outcome_line() const;
};

struct ClientParts {
  Transport& transport;
  Clock& clock;
  Sleeper& sleeper;
  Random& random;
  IntentLedger& ledger;  // durable; the memory-only-intent mutant ignores it
  // The service instance's, shared by every operation it serves (retry_budget.hpp); none for
  // a client that runs one operation and ends. The no-budget mutant ignores it.
  RetryBudget* budget = nullptr;
  // The instance's too (circuit_breaker.hpp): it guards creates, each admitted before it is
  // sent and its answer told to it; lookups are the budget's alone.
  CircuitBreaker* breaker = nullptr;
};

class RetryingClient {
 public:
  RetryingClient(ClientSettings settings, ClientParts parts, ClientBehaviour behaviour);
  // The reference client, or a mutant of it: its row's behaviour.
  RetryingClient(ClientSettings settings, ClientParts parts, Mutant mutant = Mutant::none);

  // Runs one logical operation to an outcome, resuming from the ledger if an earlier
  // run for the same operation id did not finish.
  ClientResult run(const Operation& operation);

 private:
  struct Run;
  enum class Next { attempt, reconcile, done };

  Next plan(Run& run);
  Next attempt(Run& run);
  TransportResponse send_create(Run& run, Step& step);
  Next retry_same_key(Run& run, Step& step, const TransportResponse& response);
  Next after_unseen_outcome(Run& run, Step& step, const TransportResponse& response);
  Next reconcile(Run& run);
  Next give_up(Run& run, ClientOutcome outcome, const std::string& reason);
  Next confirm(Run& run, const std::string& job_id);
  bool budget_left(const Run& run) const;
  std::optional<std::string> instance_withholds(Run& run, bool create);
  std::string refused(Run& run, const GuardRefusal& refusal);
  Next withheld(Run& run, const std::string& why);
  void tell_breaker(const TransportResponse& response);
  IntentLedger& ledger();
  Millis backoff(int attempts_made);
  void record(Run& run, Step step);

  ClientSettings settings_;
  ClientParts parts_;
  ClientBehaviour behaviour_;
  InMemoryIntentLedger memory_only_;  // the ledger of a client without durable intent
};

}  // namespace retryproof::client
