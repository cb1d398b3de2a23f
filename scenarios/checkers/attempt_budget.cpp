// attempt-budget (policy): one run of the client sends at most its budget of creates: the
// declared attempts, or the scenario's client.attempts. Per run: a later invocation is a new
// decision to carry the operation out.
#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict attempt_budget(const Evidence& evidence) {
  const JudgedPolicy& policy = evidence.policy();
  Violations violations;
  const auto budget = static_cast<std::size_t>(policy.attempts);
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    if (creates.size() <= budget) continue;
    violations.add(label(invocation) + " sent " + std::to_string(creates.size()) +
                       " POSTs (the first over the budget: " + seq_text(*creates[budget]) +
                       "); the budget is " + policy.attempts_text(),
                   {creates[budget]->seq});
  }
  return std::move(violations)
      .verdict("every run of the client stayed within " + std::to_string(budget) + " attempts");
}

}  // namespace retryproof::scenarios::checkers
