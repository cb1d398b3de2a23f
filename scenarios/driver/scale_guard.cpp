#include "scenarios/driver/scale_guard.hpp"

#include <algorithm>

#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

std::optional<std::string> undecided_at_scale(const Scenario& scenario,
                                              const ScenarioResult& result, TimeScale scale,
                                              Millis overhead) {
  if (scale.is_real_time()) return std::nullopt;
  // What a retry without any wait may measure here.
  const Millis reach = overhead * scale.factor();
  const Evidence evidence(scenario, result.policy, result.invocations, result.journal, result.jobs);
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 1; i < creates.size(); ++i) {
      const JournalEntry& previous = *creates[i - 1];
      const auto ended = checkers::ended_for_client(previous, result.policy.timeout);
      if (!ended) continue;  // not judged by the verdicts either
      const Millis gap = creates[i]->at - *ended;
      // The requirement the verdicts hold this gap to: the floor, or the Retry-After.
      const Millis required = std::max(result.policy.min_backoff,
                                       Millis(checkers::status_of(previous) == 429
                                                  ? previous.retry_after_seconds.value_or(0) * 1000
                                                  : 0));
      // A retry that did not wait at all and measures `gap` here measures gap / N at real
      // time: when that still meets the requirement (a floor of a few ms, as explore draws),
      // real time would pass it too, and there is nothing to decide there.
      const bool real_time_agrees = gap >= required * scale.factor();
      if (gap >= required && gap < reach && !real_time_agrees) {
        return seq_text(*creates[i]) + " came " + std::to_string(gap.count()) +
               " ms after the previous attempt ended, which needs " +
               std::to_string(required.count()) + " ms; at scale " +
               std::to_string(scale.factor()) + " a retry that does not wait at all may measure " +
               std::to_string(reach.count()) + " ms";
      }
    }
  }
  return std::nullopt;
}

std::string real_time_summary(const std::vector<ScenarioResult>& results, TimeScale scale) {
  std::vector<const ScenarioResult*> rejudged;
  for (const auto& result : results) {
    if (!result.judged_at_real_time.empty()) rejudged.push_back(&result);
  }
  if (rejudged.empty()) return {};
  std::string names;
  for (const auto* result : rejudged)
    names += (names.empty() ? "" : ", ") + result->name;
  return "time scale " + std::to_string(scale.factor()) + ": " + std::to_string(rejudged.size()) +
         " of " + std::to_string(results.size()) +
         " scenarios judged at real time instead: a retry there came so soon that, with real "
         "overhead counted " +
         std::to_string(scale.factor()) + " times, it might not have waited at all (" + names +
         "; " + rejudged.front()->name + ": " + rejudged.front()->judged_at_real_time + ")";
}

}  // namespace retryproof::scenarios
