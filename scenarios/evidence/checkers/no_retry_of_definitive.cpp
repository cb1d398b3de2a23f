// no-retry-of-definitive: nothing is re-sent after a 400 or 422, which no retry can change.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict no_retry_of_definitive(const Evidence& evidence) {
  Violations violations;
  bool any_definitive = false;
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 0; i < creates.size(); ++i) {
      const int status = status_of(*creates[i]);
      if (status != 400 && status != 422) continue;
      any_definitive = true;
      if (i + 1 < creates.size()) {
        violations.add(request_text(*creates[i + 1]) + " was re-sent (" +
                           seq_text(*creates[i + 1]) + ") after a " + std::to_string(status) +
                           " (" + seq_text(*creates[i]) + "), which no retry can change",
                       {creates[i]->seq, creates[i + 1]->seq});
      }
    }
  }
  if (!any_definitive) return not_applicable("no request was refused");
  return std::move(violations).verdict("nothing was re-sent after a 400 or 422");
}

}  // namespace retryproof::scenarios::checkers
