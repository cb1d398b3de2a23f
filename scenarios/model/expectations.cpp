#include "scenarios/model/expectations.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "common/listing.hpp"

namespace retryproof::scenarios {

namespace {

// How many operations an unmet outcome names before "and N more": traffic ends thousands
// of operations, and a line each would bury the report.
constexpr std::size_t kOperationsNamed = 5;

// Each operation whose final word (the last outcome reported for it) is not among those
// allowed: one miss for a lone operation, one per outcome for many, in the order they arrived.
void unmet_outcomes(const std::vector<Reported>& allowed, const ScenarioResult& result,
                    std::vector<Unmet>& unmet) {
  std::map<std::string, Reported> final_outcome;
  std::vector<std::string> order;  // of first arrival
  for (const auto& invocation : result.invocations) {
    if (!invocation.outcome) continue;
    if (final_outcome.insert_or_assign(invocation.operation, invocation.outcome->outcome).second)
      order.push_back(invocation.operation);
  }
  std::map<Reported, std::vector<std::string>> missed;  // by outcome, in arrival order
  for (const std::string& operation : order) {
    const Reported outcome = final_outcome.at(operation);
    if (std::find(allowed.begin(), allowed.end(), outcome) == allowed.end())
      missed[outcome].push_back(operation);
  }
  std::string list;
  for (const Reported name : allowed)
    list += (list.empty() ? "" : " or ") + to_string(name);
  for (const auto& [outcome, operations] : missed) {
    if (operations.size() == 1) {
      unmet.push_back({operations.front() + " ended " + to_string(outcome) + "; expected " + list,
                       Severity::policy});
      continue;
    }
    unmet.push_back({std::to_string(operations.size()) + " operations ended " + to_string(outcome) +
                         "; expected " + list + ": " + first_of(operations, kOperationsNamed),
                     Severity::policy});
  }
}

std::vector<Unmet> unmet_against(const Expectations& expect, const ScenarioResult& result) {
  std::vector<Unmet> unmet;
  const auto& expected = expect.violations;
  for (const Verdict& verdict : result.verdicts) {
    const bool expected_to_fail =
        std::find(expected.begin(), expected.end(), verdict.id) != expected.end();
    // A verdict that could not be judged is neither met nor missed (what_could_not_tell).
    if (verdict.status == VerdictStatus::inconclusive) continue;
    if (expected_to_fail && verdict.status != VerdictStatus::fail) {
      unmet.push_back({verdict.id + " was expected to flag this client, but it " +
                           (verdict.status == VerdictStatus::pass ? "passed" : "did not apply"),
                       Severity::harm});  // the harness missed what it exists to catch
    } else if (!expected_to_fail && verdict.status == VerdictStatus::fail) {
      unmet.push_back({verdict.id + ": " + verdict.explanation, verdict.severity, verdict.id});
    }
  }
  if (expect.jobs && static_cast<int>(result.jobs.size()) != *expect.jobs) {
    const bool more = static_cast<int>(result.jobs.size()) > *expect.jobs;
    unmet.push_back({"the provider holds " + std::to_string(result.jobs.size()) +
                         (result.jobs.size() == 1 ? " job" : " jobs") + "; expected " +
                         std::to_string(*expect.jobs),
                     more ? Severity::harm : Severity::policy});
  }
  if (!expect.outcomes.empty()) unmet_outcomes(expect.outcomes, result, unmet);
  return unmet;
}

}  // namespace

std::vector<Unmet> unmet_expectations(const Scenario& scenario, const ScenarioResult& result) {
  const Expectations& expect = scenario.expect.for_policy(result.policy.on_ambiguous);
  std::vector<Unmet> unmet = unmet_against(expect, result);
  // What a same-key-retry client is expected to do is what it may do: one that did better
  // (ky, say, which reports unknown after a timeout instead of re-sending) is judged by the
  // scenario's own expectations, and has met the scenario if it meets them. When it meets
  // neither, the misses shown are the lesser: a client that never re-sent is not blamed for
  // the duplicate a re-send would have made (an SDK that does not retry a dropped
  // connection, say, and then overran the time limit).
  if (unmet.empty() || &expect == &scenario.expect) return unmet;
  std::vector<Unmet> own = unmet_against(scenario.expect, result);
  const auto worst_of = [](const std::vector<Unmet>& misses) {
    Severity worst = Severity::policy;
    for (const Unmet& miss : misses)
      worst = std::max(worst, miss.severity);
    return worst;
  };
  return own.empty() || worst_of(own) < worst_of(unmet) ? own : unmet;
}

std::vector<Inconclusive> inconclusive_verdicts(const ScenarioResult& result) {
  std::vector<Inconclusive> found;
  const auto& expected = result.expected_violations;
  for (const Verdict& verdict : result.verdicts) {
    if (verdict.status != VerdictStatus::inconclusive) continue;
    const bool expected_to_fail =
        std::find(expected.begin(), expected.end(), verdict.id) != expected.end();
    found.push_back({verdict.id +
                         (expected_to_fail ? " was expected to flag this client, but "
                                             "could not be judged: "
                                           : ": ") +
                         verdict.explanation,
                     verdict.id});
  }
  return found;
}

namespace {

// What the client is shown by a request with each outcome, in words, for a scenario that
// exists to show it.
constexpr std::array<std::pair<provider::Outcome, std::string_view>, 7> kShownBy{{
    {provider::Outcome::conflict, "a 409: its key's first request still in flight"},
    {provider::Outcome::replay, "a replay of its job"},
    {provider::Outcome::rejected, "a 422: its key reused with another payload"},
    {provider::Outcome::lookup_hit, "a lookup that finds its job"},
    {provider::Outcome::lookup_miss, "a lookup that finds nothing"},
    {provider::Outcome::lookup_failed, "a lookup that fails"},
    {provider::Outcome::outage, "an outage"},
}};

std::string shown_by(provider::Outcome outcome) {
  for (const auto& [listed, words] : kShownBy) {
    if (listed == outcome) return std::string(words);
  }
  return "the outcome " + provider::to_string(outcome);
}

// The planned faults that never fired, though neither the plan nor the expectations the
// run is judged by let it off: what the scenario exists to show its client went untested.
std::vector<Inconclusive> unfired(const Expectations& expect, const ScenarioResult& result) {
  std::vector<Inconclusive> missing;
  for (const provider::PlanUse& use : result.planned) {
    const bool excused = use.optional || std::find(expect.optional.begin(), expect.optional.end(),
                                                   use.source) != expect.optional.end();
    if (use.fired == 0 && !excused) missing.push_back({use.describe(), ""});
  }
  return missing;
}

// The answers the scenario exists to show its client that no request of the run met.
std::vector<Inconclusive> unexercised(const Scenario& scenario, const ScenarioResult& result) {
  std::vector<Inconclusive> missing;
  for (const provider::Outcome outcome :
       scenario.expect.for_policy(result.policy.on_ambiguous).exercises) {
    const bool met = std::any_of(result.journal.begin(), result.journal.end(),
                                 [&](const auto& entry) { return entry.outcome == outcome; });
    if (met) continue;
    missing.push_back({"the scenario exists to show its client " + shown_by(outcome) +
                           " (journal outcome " + provider::to_string(outcome) +
                           "), and no request of the run met one",
                       ""});
  }
  return missing;
}

}  // namespace

void settle_expectations(const Scenario& scenario, ScenarioResult& result) {
  for (Inconclusive& reason :
       unfired(scenario.expect.for_policy(result.policy.on_ambiguous), result))
    result.inconclusive.push_back(std::move(reason));
  for (Inconclusive& reason : unexercised(scenario, result))
    result.inconclusive.push_back(std::move(reason));
  result.unmet = unmet_expectations(scenario, result);
  for (Inconclusive& verdict : inconclusive_verdicts(result))
    result.inconclusive.push_back(std::move(verdict));
}

}  // namespace retryproof::scenarios
