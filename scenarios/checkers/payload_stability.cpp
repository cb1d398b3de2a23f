// payload-stability: every create carries the payload its invocation was given.
#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict payload_stability(const Evidence& evidence) {
  Violations violations;
  for (const auto& invocation : evidence.invocations()) {
    const std::string expected = evidence.fingerprint_of(invocation.payload);
    for (const JournalEntry* create : evidence.creates_of(invocation)) {
      // A create refused before its body was read (no key, say) carried no payload to judge.
      if (!create->fingerprint || *create->fingerprint == expected) continue;
      const bool refused = create->outcome == provider::Outcome::rejected;
      violations.add(request_text(*create) + " with key " + key_text(*create) + " (" + seq_text(*create) +
                         ") carried a payload other than the one operation " +
                         invocation.operation + " asked for" +
                         (refused ? "; the provider refused it with 422" : ""),
                     {create->seq});
    }
  }
  return std::move(violations).verdict("every attempt carried the operation's payload");
}

}  // namespace retryproof::scenarios::checkers
