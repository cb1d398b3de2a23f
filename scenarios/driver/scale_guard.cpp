#include "scenarios/driver/scale_guard.hpp"

#include <algorithm>
#include <utility>

#include "scenarios/driver/attribution.hpp"
#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

std::optional<std::string> undecided_at_scale(const Scenario& scenario,
                                              const ScenarioResult& result, TimeScale scale,
                                              Millis overhead) {
  if (scale.is_real_time()) return std::nullopt;
  // What a retry without any wait may measure here.
  const Millis reach = overhead * scale.factor();
  // The requests each invocation is charged with, as the driver judged them.
  // Traffic's operations are drawn from the run's seed, as the driver drew them.
  const Scenario drawn = expand_traffic(scenario, result.seed);
  const auto charged = charged_for(drawn, result.journal, result.invocations);
  const Evidence evidence(drawn, result.policy, result.invocations, result.journal, result.jobs,
                          charged);
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 1; i < creates.size(); ++i) {
      const JournalEntry& previous = *creates[i - 1];
      const auto ended = checkers::ended_for_client(previous, result.policy.timeout);
      if (!ended) continue;  // not judged by the verdicts either
      const Millis gap = creates[i]->at - *ended;
      // The requirement the verdicts hold this gap to: the floor, or the Retry-After.
      const Millis required =
          std::max(result.policy.min_backoff,
                   Millis(checkers::meaning_of(previous) == provider::Meaning::rate_limited
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

namespace {

// The shortest wait undecided_at_scale holds a retry gap to: the floor, or without one a 429's
// Retry-After, which is whole seconds (a Retry-After of 0 requires nothing, as no floor does).
Millis shortest_required_wait(const JudgedPolicy& policy) {
  constexpr Millis kShortestRetryAfter{1000};
  return policy.min_backoff > Millis(0) ? policy.min_backoff : kShortestRetryAfter;
}

}  // namespace

int clients_per_core(int concurrency, unsigned cores) {
  const int shared_by = static_cast<int>(std::max(cores, 1u));
  return std::max(1, (concurrency + shared_by - 1) / shared_by);
}

ChosenScale scale_for(const JudgedPolicy& policy, TimeScale ceiling, Millis overhead, int sharing) {
  const Millis required = shortest_required_wait(policy);
  const Millis fleet_overhead = std::max(overhead, Millis(1)) * std::max(sharing, 1);
  // At N with N × overhead <= required, a retry that does not wait at all measures less than
  // any requirement: every gap the verdicts judge is decided where it is measured.
  const auto fits = std::max<Millis::rep>(1, required / fleet_overhead);
  if (fits >= ceiling.factor()) return {ceiling};
  const std::string scale = std::to_string(fits);
  const std::string shared = sharing > 1 ? " (" + std::to_string(overhead.count()) +
                                               " ms for one, " + std::to_string(sharing) +
                                               " times: the fleet's clients share the cores)"
                                         : "";
  return {TimeScale(static_cast<int>(fits)),
          "a retry that does not wait at all may take " + std::to_string(fleet_overhead.count()) +
              " ms here" + shared + ", and above scale " + scale + " it could measure the " +
              std::to_string(required.count()) + " ms its verdicts require between attempts"};
}

std::string scale_summary(const std::vector<ScenarioResult>& results, TimeScale ceiling) {
  // The scenarios below the ceiling, grouped by why (in the order first met): a catalog's
  // scenarios mostly share one floor, and so one reason.
  std::vector<std::pair<const ScenarioResult*, std::string>> groups;
  std::size_t lower = 0;
  for (const auto& result : results) {
    if (result.scale >= ceiling.factor()) continue;
    ++lower;
    const auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& group) {
      return group.first->scale == result.scale && group.first->scale_why == result.scale_why;
    });
    if (same == groups.end()) {
      groups.emplace_back(&result, result.name);
    } else {
      same->second += ", " + result.name;
    }
  }
  if (groups.empty()) return {};
  std::string text = "time scale " + std::to_string(ceiling.factor()) + ": " +
                     std::to_string(lower) + " of " + std::to_string(results.size()) +
                     " scenarios ran at a lower scale, the largest at which their verdicts hold";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& [first, names] = groups[i];
    text += (i == 0 ? ". At " : "; at ") + std::to_string(first->scale) + ", " + names + ": " +
            first->scale_why;
  }
  return text;
}

}  // namespace retryproof::scenarios
