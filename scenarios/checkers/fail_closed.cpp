// fail-closed: after an outcome the client could not see, the next request naming the key
// is a lookup (or nothing).
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
  for (const JournalEntry& entry : evidence.journal()) {
    const JournalEntry* next = evidence.next_about_key(entry);
    const std::string hidden = hidden_outcome(entry, next);
    if (hidden.empty()) continue;
    any_hidden = true;
    if (next != nullptr && next->kind == provider::RequestKind::create) {
      violations.add("POST /jobs with key " + key_text(entry) + " was re-sent (" + seq_text(*next) +
                         ") after " + hidden + " (" + seq_text(entry) +
                         "); a lookup by key was required first",
                     {entry.seq, next->seq});
    }
  }
  if (!any_hidden) return not_applicable("no outcome was hidden from the client");
  return std::move(violations)
      .verdict("every hidden outcome was followed by a lookup, or by nothing");
}

}  // namespace retryproof::scenarios::checkers
