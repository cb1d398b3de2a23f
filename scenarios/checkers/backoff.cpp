// backoff: consecutive attempts of one run are at least the floor apart.
#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict backoff(const Evidence& evidence) {
  Violations violations;
  const auto floor = evidence.scenario().min_gap.count();
  bool any_retry = false;
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 1; i < creates.size(); ++i) {
      any_retry = true;
      const auto gap = (creates[i]->at - creates[i - 1]->at).count();
      if (gap >= floor) continue;
      violations.add("attempt " + std::to_string(i + 1) + " of " + invocation.operation + " (" +
                         seq_text(*creates[i]) + ") came " + std::to_string(gap) +
                         " ms after the previous one (" + seq_text(*creates[i - 1]) +
                         "); the floor is " + std::to_string(floor) + " ms",
                     {creates[i - 1]->seq, creates[i]->seq});
    }
  }
  if (!any_retry) return not_applicable("no operation was retried");
  return std::move(violations)
      .verdict("every retry waited at least " + std::to_string(floor) + " ms");
}

}  // namespace retryproof::scenarios::checkers
