#include "client_under_test/mutant.hpp"

#include <algorithm>
#include <stdexcept>

namespace retryproof::client {

const std::vector<MutantRow>& mutant_catalogue() {
  static const std::vector<MutantRow> catalogue = {
      {Mutant::none, "reference", "none: the retry-safe pattern", {}, {}},
      {Mutant::fresh_key_per_attempt,
       "fresh-key-per-attempt",
       "a new idempotency key on every attempt",
       {.key = KeyScheme::per_attempt},
       {"no-duplicate-effect", "key-stability"}},
      {Mutant::blind_retry,
       "blind-retry",
       "re-sends after an outcome it could not see, without a lookup",
       {.on_hidden = OnHiddenOutcome::resend},
       {"fail-closed"}},
      // retry-spread catches it too where a fleet fails at one moment: always in the
      // simulation (property_tests/fleet_properties_test.cpp), but over real processes its
      // waits are the machine's overhead alone, and a loaded machine spreads them past the
      // threshold. The matrix asserts what holds on any machine.
      {Mutant::no_backoff, "no-backoff", "retries at once", {.backs_off = false}, {"backoff"}},
      {Mutant::unbounded,
       "unbounded",
       "never stops retrying a 503",
       {.bounded = false},
       {"attempt-budget", "load-amplification"}},
      {Mutant::payload_drift,
       "payload-drift",
       "adds the attempt time to the body on retries",
       {.keeps_payload = false},
       {"payload-stability"}},
      {Mutant::timeout_is_failure,
       "timeout-is-failure",
       "reports failed after an outcome it could not see, though the job may exist",
       {.on_hidden = OnHiddenOutcome::report_failed},
       {"truthful-outcome"}},
      {Mutant::retries_4xx,
       "retries-4xx",
       "retries 400 and 422",
       {.retries_definitive = true},
       {"no-retry-of-definitive"}},
      {Mutant::ignores_retry_after,
       "ignores-retry-after",
       "waits its own backoff instead of Retry-After",
       {.honours_retry_after = false},
       {"retry-after"}},
      {Mutant::memory_only_intent,
       "memory-only-intent",
       "keeps its key only in memory; a restart derives a new one",
       {.key = KeyScheme::per_process, .durable_intent = false},
       {"crash-recovery", "no-duplicate-effect"}},
      {Mutant::nested_retry_new_key,
       "nested-retry-new-key",
       "an outer loop starts over under a new key when the inner loop gives up",
       {.key = KeyScheme::per_round, .rounds = 2},
       {"key-stability", "no-duplicate-effect"}},
      {Mutant::no_jitter,
       "no-jitter",
       "backs off exponentially without jitter: a fleet that fails together retries together",
       {.jitters = false},
       {"retry-spread"},
       ShownBy::fleet},
      {Mutant::no_budget,
       "no-budget",
       "retries every failure to its attempts, with neither a retry budget nor a circuit "
       "breaker in its instance: a fleet's retries keep an overloaded service down",
       {.uses_budget = false, .uses_breaker = false},
       {"retry-budget", "stopping"},
       ShownBy::traffic},
      {Mutant::breaker_never_probes,
       "breaker-never-probes",
       "its instance's circuit breaker, once open, never lets a probe through: the instance "
       "stays cut off after the service is back",
       {.breaker_flaw = BreakerFlaw::never_probes},
       {"stopping", "recovery", "gave-up"},
       ShownBy::traffic},
      {Mutant::breaker_never_closes,
       "breaker-never-closes",
       "its instance's circuit breaker probes, but a probe's success does not close it: the "
       "instance serves one operation a probe after the service is back",
       {.breaker_flaw = BreakerFlaw::never_closes},
       {"recovery", "gave-up"},
       ShownBy::traffic},
  };
  return catalogue;
}

const MutantRow& row_of(Mutant mutant) {
  const auto& catalogue = mutant_catalogue();
  const auto row =
      std::find_if(catalogue.begin(), catalogue.end(),
                   [&](const MutantRow& candidate) { return candidate.mutant == mutant; });
  if (row == catalogue.end()) throw std::logic_error("a mutant without a catalogue row");
  return *row;
}

std::string to_string(Mutant mutant) {
  return std::string(row_of(mutant).name);
}

Mutant parse_mutant(std::string_view name) {
  for (const MutantRow& row : mutant_catalogue()) {
    if (row.name == name && row.mutant != Mutant::none) return row.mutant;
  }
  std::string names;
  for (const Mutant mutant : all_mutants())
    names += (names.empty() ? "" : ", ") + to_string(mutant);
  throw std::invalid_argument("unknown mutant \"" + std::string(name) +
                              "\"; known mutants: " + names);
}

const std::vector<Mutant>& all_mutants() {
  static const std::vector<Mutant> mutants = [] {
    std::vector<Mutant> list;
    for (const MutantRow& row : mutant_catalogue()) {
      if (row.mutant != Mutant::none) list.push_back(row.mutant);
    }
    return list;
  }();
  return mutants;
}

std::string mutant_help() {
  std::string help;
  for (const MutantRow& row : mutant_catalogue()) {
    if (row.mutant == Mutant::none) continue;
    help += (help.empty() ? "" : "; ") + std::string(row.name) + " (" + std::string(row.bug) + ")";
  }
  return help;
}

}  // namespace retryproof::client
