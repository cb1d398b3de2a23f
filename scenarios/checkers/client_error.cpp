// client-error: every invocation prints one valid outcome line (a kill on purpose aside).
#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict client_error(const Evidence& evidence) {
  Violations violations;
  for (const auto& invocation : evidence.invocations()) {
    if (invocation.killed || invocation.client_error.empty()) continue;
    violations.add(label(invocation) + ": " + invocation.client_error, {});
  }
  return std::move(violations).verdict("every invocation printed one valid outcome line");
}

}  // namespace retryproof::scenarios::checkers
