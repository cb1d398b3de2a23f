#include "scenarios/model/expectations.hpp"

#include <algorithm>
#include <map>

namespace retryproof::scenarios {

namespace {

std::vector<Unmet> unmet_against(const Expectations& expect, const ScenarioResult& result) {
  std::vector<Unmet> unmet;
  const auto& expected = expect.violations;
  for (const Verdict& verdict : result.verdicts) {
    const bool expected_to_fail =
        std::find(expected.begin(), expected.end(), verdict.id) != expected.end();
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
  if (!expect.outcomes.empty()) {
    // The last outcome reported for each operation is its final word.
    std::map<std::string, Reported> final_outcome;
    for (const auto& invocation : result.invocations) {
      if (invocation.outcome) final_outcome[invocation.operation] = invocation.outcome->outcome;
    }
    const auto& allowed = expect.outcomes;
    for (const auto& [operation, outcome] : final_outcome) {
      if (std::find(allowed.begin(), allowed.end(), outcome) != allowed.end()) continue;
      std::string list;
      for (const Reported name : allowed)
        list += (list.empty() ? "" : " or ") + to_string(name);
      unmet.push_back(
          {operation + " ended " + to_string(outcome) + "; expected " + list, Severity::policy});
    }
  }
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

}  // namespace retryproof::scenarios
