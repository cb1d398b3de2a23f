#include "scenarios/evidence/verdicts.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

// Each is defined in scenarios/evidence/checkers/<its id>.cpp.
namespace checkers {
Verdict no_duplicate_effect(const Evidence& evidence);
Verdict key_stability(const Evidence& evidence);
Verdict payload_stability(const Evidence& evidence);
Verdict fail_closed(const Evidence& evidence);
Verdict attempt_budget(const Evidence& evidence);
Verdict backoff(const Evidence& evidence);
Verdict retry_after(const Evidence& evidence);
Verdict no_retry_of_definitive(const Evidence& evidence);
Verdict truthful_outcome(const Evidence& evidence);
Verdict crash_recovery(const Evidence& evidence);
Verdict gave_up(const Evidence& evidence);
Verdict time_limit(const Evidence& evidence);
Verdict client_error(const Evidence& evidence);
Verdict load_amplification(const Evidence& evidence);
Verdict retry_spread(const Evidence& evidence);
Verdict recovery(const Evidence& evidence);
Verdict retry_budget(const Evidence& evidence);
Verdict stopping(const Evidence& evidence);
}  // namespace checkers

const std::vector<VerdictRow>& verdict_table() {
  using enum Severity;
  static const std::vector<VerdictRow> table = {
      {"no-duplicate-effect", harm, checkers::no_duplicate_effect,
       "at most one job per logical operation"},
      {"key-stability", policy, checkers::key_stability,
       "all creates of one operation carry one key"},
      {"payload-stability", harm, checkers::payload_stability,
       "every create carries the payload its invocation was given"},
      {"fail-closed", policy, checkers::fail_closed,
       "under lookup-first, after an outcome the client could not see, the next request naming "
       "the key is a lookup"},
      {"attempt-budget", policy, checkers::attempt_budget,
       "one run of the client sends at most its budget of creates"},
      {"backoff", policy, checkers::backoff,
       "each retry waits at least the floor after the previous attempt ended", Needs::traffic,
       Rests::on_time},
      {"retry-after", policy, checkers::retry_after,
       "after a 429, the next attempt waits its Retry-After", Needs::traffic, Rests::on_time},
      {"no-retry-of-definitive", policy, checkers::no_retry_of_definitive,
       "nothing is re-sent after a 400 or 422"},
      {"truthful-outcome", harm, checkers::truthful_outcome,
       "a reported outcome matches what the provider holds, for this invocation's payload",
       Needs::outcomes},
      {"crash-recovery", policy, checkers::crash_recovery,
       "a restart after a kill creates no second job (harm), and under lookup-first asks by key "
       "first (policy)",
       Needs::outcomes},
      {"gave-up", policy, checkers::gave_up,
       "no failed or unknown report while budget was left after a retryable 503 or 429, and "
       "none without an attempt",
       Needs::outcomes, Rests::on_time},
      {"time-limit", policy, checkers::time_limit,
       "every invocation ends within the scenario's time limit", Needs::outcomes, Rests::on_time},
      {"client-error", harm, checkers::client_error,
       "every invocation prints one valid outcome line and exits 0", Needs::outcomes},
      // A fleet's effect on the service, judged where a scenario has an outage or a wave of
      // retries (scenarios/evidence/fleet.hpp).
      {"load-amplification", policy, checkers::load_amplification,
       "during an outage, creates per operation stay within the attempts (or 1 plus a declared "
       "retry budget), and lookups within one per attempt",
       Needs::traffic, Rests::on_time},
      {"retry-spread", policy, checkers::retry_spread,
       "the n-th retries of a fleet's clients are spread by jitter, not sent in one wave",
       Needs::traffic, Rests::on_time},
      {"recovery", policy, checkers::recovery,
       "after an outage ends, every client it caught is done within its longest backoff, one "
       "timeout and a second; under traffic, the fleet's success rate is back within its "
       "recoverWithin (else a metastable failure)",
       Needs::traffic, Rests::on_time},
      {"retry-budget", policy, checkers::retry_budget,
       "under traffic, each instance's retries stay within its declared retry budget (and the "
       "first 10)",
       Needs::traffic},
      {"stopping", policy, checkers::stopping,
       "in an outage of 10 s or more, an instance with a declared breaker or budget stops adding "
       "load: a breaker opens at its threshold, then probes at its declared rate; a budget's "
       "retries stay within it",
       Needs::traffic, Rests::on_time},
  };
  return table;
}

const std::vector<std::string>& verdict_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> list;
    for (const VerdictRow& row : verdict_table())
      list.emplace_back(row.id);
    return list;
  }();
  return ids;
}

const VerdictRow& verdict_row(std::string_view id) {
  const auto& table = verdict_table();
  const auto row = std::find_if(table.begin(), table.end(),
                                [&](const VerdictRow& candidate) { return candidate.id == id; });
  if (row == table.end())
    throw std::invalid_argument("unknown verdict \"" + std::string(id) + "\"");
  return *row;
}

std::vector<Verdict> judge(const Evidence& evidence, Needs available) {
  std::vector<Verdict> verdicts;
  for (const VerdictRow& row : verdict_table()) {
    if (row.needs > available) continue;
    Verdict verdict = row.check(evidence);
    // The row is the one source of the id: a checker cannot report under another.
    verdict.id = std::string(row.id);
    verdict.severity = std::max(verdict.severity, row.severity);
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

std::string to_string(Severity severity) {
  return severity == Severity::harm ? "harm" : "policy";
}

Severity parse_severity(std::string_view text) {
  if (text == "harm") return Severity::harm;
  if (text == "policy") return Severity::policy;
  throw std::invalid_argument("\"" + std::string(text) + "\": harm or policy");
}

std::string to_string(VerdictStatus status) {
  switch (status) {
    case VerdictStatus::pass:
      return "pass";
    case VerdictStatus::fail:
      return "fail";
    case VerdictStatus::not_applicable:
      return "n/a";
    case VerdictStatus::inconclusive:
      return "inconclusive";
  }
  return "n/a";
}

}  // namespace retryproof::scenarios
