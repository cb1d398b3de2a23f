// Copies of the reference client with one classic bug each, to prove the harness has
// teeth. A mutant is a row: its name, its bug in words, the behaviour RetryingClient runs
// (one deviation from the reference's), and the verdicts that must catch it. Help text,
// the mutant matrix and the tests are derived from the table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client_under_test/circuit_breaker.hpp"

namespace retryproof::client {

enum class Mutant {
  none,  // the reference client
  fresh_key_per_attempt,
  blind_retry,
  no_backoff,
  unbounded,
  payload_drift,
  timeout_is_failure,
  retries_4xx,
  ignores_retry_after,
  memory_only_intent,
  nested_retry_new_key,
  no_jitter,
  no_budget,
  breaker_never_probes,
  breaker_never_closes,
};

// Where the idempotency key comes from.
enum class KeyScheme {
  per_operation,  // derived once from the operation's identity (correct)
  per_attempt,    // a new key on every attempt
  per_process,    // minted when the process starts: a restart changes it
  per_round,      // a new key each time an outer loop starts over
};

// What the client does after an outcome it could not see (a drop, a reset, a timeout...).
enum class OnHiddenOutcome {
  look_up,        // reconcile by key before anything else (correct)
  resend,         // send the same request again, blind
  report_failed,  // give up and report failed, though the job may exist
};

// How a client behaves; the reference client is the defaults.
struct ClientBehaviour {
  KeyScheme key = KeyScheme::per_operation;
  bool durable_intent = true;  // the intent survives a crash (in the ledger)
  bool keeps_payload = true;   // every attempt sends the operation's payload unchanged
  OnHiddenOutcome on_hidden = OnHiddenOutcome::look_up;
  bool retries_definitive = false;  // retries a 400 or 422
  bool honours_retry_after = true;
  bool backs_off = true;
  bool jitters = true;  // half of each backoff step is random, so a fleet does not retry in waves
  bool bounded = true;  // stops at the attempt budget
  int rounds = 1;       // an outer loop that starts over (with KeyScheme::per_round)
  bool uses_budget = true;   // asks its instance's retry budget before each retry
  bool uses_breaker = true;  // asks its instance's circuit breaker before each create
  // Its instance's circuit breaker's bug, if it has one: the world that builds an instance's
  // breaker builds it with this.
  BreakerFlaw breaker_flaw = BreakerFlaw::none;

  friend bool operator==(const ClientBehaviour&, const ClientBehaviour&) = default;
};

// What a mutant's bug needs to show: one client, a fleet of them, or a fleet of long-lived
// service instances under steady traffic (a retry budget and a circuit breaker live in an
// instance: a client started per operation has a full bucket and a closed breaker each time).
enum class ShownBy { one_client, fleet, traffic };

struct MutantRow {
  Mutant mutant;
  std::string_view name;
  std::string_view bug;  // in words, for help and reports
  ClientBehaviour behaviour;
  std::vector<std::string_view> caught_by;  // verdict ids that must flag it in the catalog
  ShownBy shown_by = ShownBy::one_client;
};

// The reference client first, then every mutant.
const std::vector<MutantRow>& mutant_catalogue();
const MutantRow& row_of(Mutant mutant);

std::string to_string(Mutant mutant);  // "fresh-key-per-attempt"; "reference" for none

// Throws std::invalid_argument listing the known names.
Mutant parse_mutant(std::string_view name);

// Every mutant, without `none`.
const std::vector<Mutant>& all_mutants();

// "fresh-key-per-attempt (a new idempotency key on every attempt), ..." for help text.
std::string mutant_help();

}  // namespace retryproof::client
