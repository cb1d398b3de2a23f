// retry-after (policy): after a 429, the next attempt waits at least its Retry-After,
// counted from the 429's arrival at the client. A 429 is a rate limit by its code: under an
// API shape that throttles with a 400 ThrottlingException, that 400.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict retry_after(const Evidence& evidence) {
  Violations violations;
  bool any_limited = false;
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 0; i + 1 < creates.size(); ++i) {
      if (meaning_of(*creates[i]) != provider::Meaning::rate_limited) continue;
      any_limited = true;
      const std::int64_t seconds = creates[i]->retry_after_seconds.value_or(0);
      const Millis answered = creates[i]->answered_at.value_or(creates[i]->at);
      const auto gap = (creates[i + 1]->at - answered).count();
      if (gap >= seconds * 1000) continue;
      violations.add("after a " + answer_text(*creates[i]) +
                         " with Retry-After: " + std::to_string(seconds) + " (" +
                         seq_text(*creates[i]) + "), the next attempt came " + std::to_string(gap) +
                         " ms later (" + seq_text(*creates[i + 1]) + "); the provider asked for " +
                         std::to_string(seconds * 1000) +
                         " ms. Read the Retry-After header and wait at least that long",
                     {creates[i]->seq, creates[i + 1]->seq});
    }
  }
  if (!any_limited) return not_applicable("no retried request was rate-limited");
  return std::move(violations).verdict("every retry after a 429 waited its Retry-After");
}

}  // namespace retryproof::scenarios::checkers
