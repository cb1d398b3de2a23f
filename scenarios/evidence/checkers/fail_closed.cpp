// fail-closed (policy): under lookup-first, after an outcome the client could not see, the
// next request of the same run naming the key is a lookup, or nothing. A client that
// declares same-key-retry may re-send the same key and payload instead: where the provider
// enforces keys that is a harmless replay, and where it does not, no-duplicate-effect
// reports the second job. A later run is a new decision; a killed run's restart is
// crash-recovery's to judge. Under an API without keys, "the key" is the business field's
// value, which its lookups ask by.
#include <algorithm>

#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict fail_closed(const Evidence& evidence) {
  const JudgedPolicy& policy = evidence.policy();
  Violations violations;
  int hidden_count = 0;
  int re_sends = 0;
  for (const auto& invocation : evidence.invocations()) {
    const auto entries = evidence.entries_of(invocation);
    for (auto at = entries.begin(); at != entries.end(); ++at) {
      const std::string hidden = hidden_outcome(*at, policy.timeout);
      if (hidden.empty()) continue;
      ++hidden_count;
      const auto next = std::find_if(std::next(at), entries.end(), [&](const JournalEntry& later) {
        return subject_of(later) == subject_of(*at);
      });
      if (next == entries.end() || next->kind != provider::RequestKind::create) continue;
      ++re_sends;
      if (policy.on_ambiguous == OnAmbiguous::same_key_retry) continue;
      violations.add(request_text(*at) + " with " + subject_text(evidence, *at) + " was re-sent (" +
                         seq_text(*next) + ") after " + hidden + " (" + seq_text(*at) + "); " +
                         what_it_got(*next) +
                         ". Under lookup-first a lookup was due first; if your client "
                         "re-sends the same key by design, declare " +
                         policy.declare_with + "on-ambiguous=same-key-retry",
                     {at->seq, next->seq});
    }
  }
  if (hidden_count == 0) return not_applicable("no outcome was hidden from the client");
  if (policy.on_ambiguous == OnAmbiguous::same_key_retry) {
    return pass(std::to_string(re_sends) +
                " re-send(s) with the same key after a hidden outcome, as same-key-retry "
                "declares (their effects are no-duplicate-effect's to judge)");
  }
  return std::move(violations)
      .verdict("every hidden outcome was followed by a lookup, or by nothing");
}

}  // namespace retryproof::scenarios::checkers
