// fail-closed: after an outcome the client could not see, the next request of the same run
// naming the key is a lookup (or nothing). A later run is a new decision; a killed run's
// restart is crash-recovery's to judge.
#include <algorithm>

#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {
namespace {

using provider::Delivery;

// Why the client could not see the outcome of this create, or empty when it could.
// `next` is the next request naming the same key, if any.
std::string hidden_outcome(const JournalEntry& entry, const JournalEntry* next) {
  if (entry.kind != provider::RequestKind::create ||
      entry.outcome != provider::Outcome::new_operation) {
    return {};
  }
  switch (entry.delivery) {
    case Delivery::drop:
      return "a dropped connection";
    case Delivery::reset:
      return "a reset connection";
    case Delivery::truncate:
      return "a truncated response";
    case Delivery::respond:
      break;
  }
  if (status_of(entry) == 500) return "a 500";
  // Held: the next request about the key came while the answer had not yet been sent.
  if (entry.answered_at && *entry.answered_at > entry.at && next != nullptr &&
      next->at < *entry.answered_at) {
    return "a response held past the client's patience (answered " +
           std::to_string((*entry.answered_at - entry.at).count()) + " ms after it arrived)";
  }
  return {};
}

}  // namespace

Verdict fail_closed(const Evidence& evidence) {
  Violations violations;
  bool any_hidden = false;
  for (const auto& invocation : evidence.invocations()) {
    const auto entries = evidence.entries_of(invocation);
    for (auto at = entries.begin(); at != entries.end(); ++at) {
      const auto next = std::find_if(std::next(at), entries.end(), [&](const JournalEntry& later) {
        return later.key == at->key;
      });
      const JournalEntry* next_about_key = next == entries.end() ? nullptr : &*next;
      const std::string hidden = hidden_outcome(*at, next_about_key);
      if (hidden.empty()) continue;
      any_hidden = true;
      if (next_about_key != nullptr && next_about_key->kind == provider::RequestKind::create) {
        violations.add("POST /jobs with key " + key_text(*at) + " was re-sent (" +
                           seq_text(*next_about_key) + ") after " + hidden + " (" + seq_text(*at) +
                           "); a lookup by key was required first",
                       {at->seq, next_about_key->seq});
      }
    }
  }
  if (!any_hidden) return not_applicable("no outcome was hidden from the client");
  return std::move(violations)
      .verdict("every hidden outcome was followed by a lookup, or by nothing");
}

}  // namespace retryproof::scenarios::checkers
