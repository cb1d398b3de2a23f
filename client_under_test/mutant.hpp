// Copies of the reference client with one classic bug each, to prove the harness has
// teeth. Each is a single deliberate deviation inside RetryingClient, chosen by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace retryproof::client {

enum class Mutant {
  none,                   // the reference client
  fresh_key_per_attempt,  // a new idempotency key on every attempt
  blind_retry,            // re-POSTs after an ambiguous outcome without a lookup
  no_backoff,             // retries immediately
  unbounded,              // never stops retrying a 503
  payload_drift,          // adds the attempt time to the body on retries
  timeout_is_failure,     // reports failed after an ambiguous outcome, without looking
  retries_4xx,            // retries 400 and 422
  ignores_retry_after,    // waits its own backoff instead of Retry-After
  memory_only_intent,     // keeps the key only in memory; a restart derives a new one
  nested_retry_new_key,   // an outer loop mints a new key when the inner loop gives up
};

std::string to_string(Mutant mutant);  // "fresh-key-per-attempt"; "reference" for none

// Throws std::invalid_argument listing the known names.
Mutant parse_mutant(std::string_view name);

// Every mutant, without `none`.
const std::vector<Mutant>& all_mutants();

}  // namespace retryproof::client
