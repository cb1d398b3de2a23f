// attempt-budget (policy): one run of the client sends at most its budget of creates: the
// declared attempts, or the scenario's client.attempts. Per run: a later invocation is a new
// decision to carry the operation out. Against an API without idempotency keys a create is
// re-sent only after a 429: a create is retried only under a key the server stores, and no
// other answer (not even a 503) proves that nothing was done.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict attempt_budget(const Evidence& evidence) {
  const JudgedPolicy& policy = evidence.policy();
  Violations violations;
  const auto budget = static_cast<std::size_t>(policy.attempts);
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    if (creates.size() > budget) {
      violations.add(label(invocation) + " sent " + std::to_string(creates.size()) +
                         " POSTs (the first over the budget: " + seq_text(*creates[budget]) +
                         "); the budget is " + policy.attempts_text(),
                     {creates[budget]->seq});
    }
    if (!evidence.keyless()) continue;
    // Without a key, only a 429 proves the create was turned away before any work: a
    // retry after anything else may make a second effect.
    for (std::size_t i = 1; i < creates.size(); ++i) {
      if (meaning_of(*creates[i - 1]) == provider::Meaning::rate_limited) continue;
      violations.add(label(invocation) + " re-sent a create (" + seq_text(*creates[i]) +
                         ") after " + what_it_got(*creates[i - 1]) + " (" +
                         seq_text(*creates[i - 1]) +
                         ") to an API without idempotency keys: a create is retried only under "
                         "a key the server stores, or after a 429, and no other answer (not "
                         "even a 503) proves that nothing was done; reconcile by the business "
                         "field instead, or report unknown",
                     {creates[i - 1]->seq, creates[i]->seq});
      break;
    }
  }
  return std::move(violations)
      .verdict("every run of the client stayed within " + std::to_string(budget) + " attempts" +
               (evidence.keyless() ? ", and re-sent a create only after a 429" : ""));
}

}  // namespace retryproof::scenarios::checkers
