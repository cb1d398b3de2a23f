// no-retry-of-definitive: nothing is re-sent after a definitive refusal (a 400 or 422 of the
// provider's own codes, whatever status the API shape sends it with), which no retry can
// change. A rate limit the shape sends as a 400 is no refusal: retrying it is right.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict no_retry_of_definitive(const Evidence& evidence) {
  Violations violations;
  bool any_definitive = false;
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 0; i < creates.size(); ++i) {
      if (meaning_of(*creates[i]) != provider::Meaning::definitive) continue;
      any_definitive = true;
      if (i + 1 < creates.size()) {
        violations.add(request_text(*creates[i + 1]) + " was re-sent (" +
                           seq_text(*creates[i + 1]) + ") after a " + answer_text(*creates[i]) +
                           " (" + seq_text(*creates[i]) + "), which no retry can change",
                       {creates[i]->seq, creates[i + 1]->seq});
      }
    }
  }
  if (!any_definitive) return not_applicable("no request was refused");
  return std::move(violations).verdict("nothing was re-sent after a 400 or 422");
}

}  // namespace retryproof::scenarios::checkers
