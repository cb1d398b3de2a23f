// payload-stability: every create carries the payload its invocation was given (judged from
// traffic alone, where no payload was given: the payload of the operation's first create).
#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict payload_stability(const Evidence& evidence) {
  Violations violations;
  for (const auto& invocation : evidence.invocations()) {
    const std::string expected = invocation.payload_fingerprint
                                     ? *invocation.payload_fingerprint
                                     : evidence.fingerprint_of(invocation.payload);
    const std::string asked_for = invocation.payload_fingerprint
                                      ? "its first attempt carried"
                                      : "operation " + invocation.operation + " asked for";
    for (const JournalEntry* create : evidence.creates_of(invocation)) {
      // A create refused before its body was read (no key, say) carried no payload to judge.
      if (!create->fingerprint || *create->fingerprint == expected) continue;
      const bool refused = create->outcome == provider::Outcome::rejected;
      violations.add(request_text(*create) + " with key " + key_text(*create) + " (" +
                         seq_text(*create) + ") carried a payload other than the one " + asked_for +
                         (refused ? "; the provider refused it with 422" : ""),
                     {create->seq});
    }
  }
  return std::move(violations).verdict("every attempt carried the operation's payload");
}

}  // namespace retryproof::scenarios::checkers
