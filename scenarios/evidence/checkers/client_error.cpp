// client-error (harm): every invocation prints one valid outcome line and exits 0: without
// it the caller cannot know what became of its operation. A kill on purpose and a stop at
// the time limit (time-limit's) aside.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict client_error(const Evidence& evidence) {
  Violations violations;
  for (const auto& invocation : evidence.invocations()) {
    if (invocation.killed || invocation.timed_out || invocation.client_error.empty()) continue;
    violations.add(label(invocation) + ": " + invocation.client_error, {});
  }
  return std::move(violations).verdict("every invocation printed one valid outcome line");
}

}  // namespace retryproof::scenarios::checkers
