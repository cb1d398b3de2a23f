// attempt-budget: one run of the client sends at most the budget's creates. Per run: a later
// invocation is a new decision to carry the operation out.
#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict attempt_budget(const Evidence& evidence) {
  Violations violations;
  const auto budget = static_cast<std::size_t>(evidence.scenario().settings.attempts);
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    if (creates.size() <= budget) continue;
    violations.add(label(invocation) + " sent " + std::to_string(creates.size()) +
                       " POSTs; the budget is " + std::to_string(budget) +
                       " (the first over it: " + seq_text(*creates[budget]) + ")",
                   {creates[budget]->seq});
  }
  return std::move(violations)
      .verdict("every run of the client stayed within " + std::to_string(budget) + " attempts");
}

}  // namespace retryproof::scenarios::checkers
