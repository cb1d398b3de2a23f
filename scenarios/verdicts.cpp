#include "scenarios/verdicts.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenarios/evidence.hpp"

namespace retryproof::scenarios {

// Each is defined in scenarios/checkers/<its id>.cpp.
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
Verdict client_error(const Evidence& evidence);
}  // namespace checkers

const std::vector<VerdictRow>& verdict_table() {
  static const std::vector<VerdictRow> table = {
      {"no-duplicate-effect", checkers::no_duplicate_effect,
       "at most one job per logical operation"},
      {"key-stability", checkers::key_stability, "all creates of one operation carry one key"},
      {"payload-stability", checkers::payload_stability,
       "every create carries the payload its invocation was given"},
      {"fail-closed", checkers::fail_closed,
       "after an outcome the client could not see, the next request naming the key is a lookup"},
      {"attempt-budget", checkers::attempt_budget,
       "one run of the client sends at most the budget's creates"},
      {"backoff", checkers::backoff, "consecutive attempts of a run are at least the floor apart"},
      {"retry-after", checkers::retry_after, "after a 429, the next attempt waits its Retry-After"},
      {"no-retry-of-definitive", checkers::no_retry_of_definitive,
       "nothing is re-sent after a 400 or 422"},
      {"truthful-outcome", checkers::truthful_outcome,
       "a reported outcome matches what the provider holds"},
      {"crash-recovery", checkers::crash_recovery,
       "after a kill, the rerun looks its intent up first and creates no second job"},
      {"client-error", checkers::client_error, "every invocation prints one valid outcome line"},
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

std::vector<Verdict> judge(const Evidence& evidence) {
  std::vector<Verdict> verdicts;
  for (const VerdictRow& row : verdict_table()) {
    Verdict verdict = row.check(evidence);
    // The row is the one source of the id: a checker cannot report under another.
    verdict.id = std::string(row.id);
    verdicts.push_back(std::move(verdict));
  }
  return verdicts;
}

std::string to_string(VerdictStatus status) {
  switch (status) {
    case VerdictStatus::pass:
      return "pass";
    case VerdictStatus::fail:
      return "fail";
    case VerdictStatus::not_applicable:
      return "n/a";
  }
  return "n/a";
}

}  // namespace retryproof::scenarios
