// payload-stability (harm): what the client sent is compared with what it sent, never with
// the scenario's payload text, since an SDK maps the payload to its API's own body. Every
// create of one invocation carries the body of its first; two invocations of one operation
// send the same body exactly when they were asked for the same payload; and a client that
// declares payload=verbatim sends the payload itself.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {
namespace {

// The first create of an invocation whose body was read (one refused before, for want of a
// key, carried no payload to judge), or null.
const JournalEntry* first_body(const Evidence& evidence, const InvocationResult& invocation) {
  for (const JournalEntry* create : evidence.creates_of(invocation)) {
    if (create->fingerprint) return create;
  }
  return nullptr;
}

std::string refused_words(const JournalEntry& create) {
  return create.outcome == provider::Outcome::rejected ? "; the provider refused it with 422" : "";
}

}  // namespace

Verdict payload_stability(const Evidence& evidence) {
  Violations violations;
  const auto& invocations = evidence.invocations();
  for (const auto& invocation : invocations) {
    const JournalEntry* first = first_body(evidence, invocation);
    if (first == nullptr) continue;
    for (const JournalEntry* create : evidence.creates_of(invocation)) {
      if (!create->fingerprint || *create->fingerprint == *first->fingerprint) continue;
      violations.add(request_text(*create) + " with " + subject_text(evidence, *create) + " (" +
                         seq_text(*create) + ") carried another body than the first attempt of " +
                         label(invocation) + " (" + seq_text(*first) +
                         "): every attempt must send the same request" + refused_words(*create),
                     {first->seq, create->seq});
    }
    // Traffic judged alone has no payload to compare with (a null one).
    if (evidence.policy().payload_verbatim && !invocation.payload.is_null() &&
        *first->fingerprint != evidence.fingerprint_of(invocation.payload)) {
      violations.add(label(invocation) + " sent a body (" + seq_text(*first) +
                         ") other than the payload it was asked to send, though the client "
                         "declares payload=verbatim" +
                         refused_words(*first),
                     {first->seq});
    }
    // Against the earlier runs of the operation: the same request is the same body, and a
    // changed one is a changed body (else the change was lost on the way to the wire).
    for (const auto& earlier : invocations) {
      if (earlier.index >= invocation.index) break;
      const JournalEntry* before = first_body(evidence, earlier);
      if (earlier.operation != invocation.operation || before == nullptr) continue;
      const bool same_payload = earlier.payload == invocation.payload;
      if (same_payload == (*before->fingerprint == *first->fingerprint)) continue;
      violations.add(same_payload
                         ? label(invocation) + " was asked for the same payload as " +
                               label(earlier) + " but sent another body (" + seq_text(*first) +
                               " against " + seq_text(*before) +
                               "): a rerun must send the same request" + refused_words(*first)
                         : label(invocation) +
                               " was asked for a changed payload but sent the same body as " +
                               label(earlier) + " (" + seq_text(*first) + " against " +
                               seq_text(*before) + "): the change never reached the provider",
                     {before->seq, first->seq});
      break;
    }
  }
  return std::move(violations).verdict("every attempt of an operation carried the same request");
}

}  // namespace retryproof::scenarios::checkers
