// What the checkers share: a collector of violations that turns into a verdict, and the
// small readings of an entry that several rules make.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "provider/error_codes.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/evidence/verdicts.hpp"

namespace retryproof::scenarios::checkers {

// A checker's verdict carries no id: judge() gives it the id of its row in verdict_table().
inline Verdict pass(std::string explanation) {
  return {{}, VerdictStatus::pass, std::move(explanation), {}};
}

inline Verdict not_applicable(std::string explanation) {
  return {{}, VerdictStatus::not_applicable, std::move(explanation), {}};
}

// What the run lacked to decide, and the entries it concerns, if any.
inline Verdict inconclusive(std::string what_was_missing, std::vector<std::uint64_t> seqs = {}) {
  return {{}, VerdictStatus::inconclusive, std::move(what_was_missing), std::move(seqs)};
}

// Collects violations; the first explains the verdict, every one adds its evidence.
class Violations {
 public:
  void add(std::string explanation, std::vector<std::uint64_t> seqs,
           Severity severity = Severity::policy) {
    explanations_.push_back(std::move(explanation));
    evidence_.insert(evidence_.end(), seqs.begin(), seqs.end());
    severity_ = std::max(severity_, severity);
  }
  bool any() const { return !explanations_.empty(); }

  Verdict verdict(std::string if_none) && {
    if (explanations_.empty()) return pass(std::move(if_none));
    std::sort(evidence_.begin(), evidence_.end());
    evidence_.erase(std::unique(evidence_.begin(), evidence_.end()), evidence_.end());
    std::string text = explanations_.front();
    if (explanations_.size() > 1)
      text += " (and " + std::to_string(explanations_.size() - 1) + " more)";
    return {{}, VerdictStatus::fail, std::move(text), std::move(evidence_), severity_};
  }

 private:
  Severity severity_ = Severity::policy;
  std::vector<std::string> explanations_;
  std::vector<std::uint64_t> evidence_;
};

// The key an entry named, or "" when it named none.
inline std::string key_text(const JournalEntry& entry) {
  return entry.key.value_or("");
}

// What a request named, in words: "key K", or on an API without keys the operation field's
// value ("reference_id=order-42").
inline std::string subject_text(const Evidence& evidence, const JournalEntry& entry) {
  if (!evidence.keyless()) return "key " + key_text(entry);
  return evidence.scenario().api.operation_field.value_or("operation") + "=" +
         entry.operation.value_or("");
}

inline int status_of(const JournalEntry& entry) {
  return entry.status.value_or(0);
}

// What an answer meant: by the provider's code the journal recorded (what the API shape
// mapped it from), else, in a journal without codes, by its status (provider/error_codes.hpp).
// A 400 ThrottlingException a shape maps from rate_limited is a rate limit, not a 400.
inline provider::Meaning meaning_of(const JournalEntry& entry) {
  const std::optional<std::string_view> code =
      entry.code ? std::optional<std::string_view>(*entry.code) : std::nullopt;
  return provider::meaning_of_answer(code, entry.status);
}

// An answer's status in words, with the code when the shape sent it under a status not the
// provider's own: "429", "400 rate_limited".
inline std::string answer_text(const JournalEntry& entry) {
  std::string text = entry.status ? std::to_string(*entry.status) : std::string("no response");
  if (!entry.code) return text;
  const provider::ErrorCodeRow* row = provider::error_code_row(*entry.code);
  if (row == nullptr || !entry.status || row->status != *entry.status) text += " " + *entry.code;
  return text;
}

// When the attempt ended for the client: when the answer reached it, or when it closed the
// connection, whichever came first. Nothing when neither was seen: an answer held past the
// client's timeout, whose client was not seen to leave (its timer started before its
// request arrived, so arrival plus timeout would be a guess that a slow connect betrays).
inline std::optional<Millis> ended_for_client(const JournalEntry& entry, Millis timeout) {
  if (entry.abandoned_at && (!entry.answered_at || *entry.abandoned_at < *entry.answered_at)) {
    return entry.abandoned_at;
  }
  if (entry.answered_at && *entry.answered_at - entry.at <= timeout) return entry.answered_at;
  return std::nullopt;
}

// Why the client could not see what its create did, or empty when it could: no response,
// a partial one, a 500, or none within its timeout. The same rule in every scenario.
inline std::string hidden_outcome(const JournalEntry& entry, Millis timeout) {
  if (entry.kind != provider::RequestKind::create) return {};
  switch (entry.delivery) {
    case provider::Delivery::drop:
      return "a dropped connection";
    case provider::Delivery::reset:
      return "a reset connection";
    case provider::Delivery::truncate:
      return "a truncated response";
    case provider::Delivery::respond:
      break;
  }
  if (meaning_of(entry) == provider::Meaning::hidden) return "a " + answer_text(entry);
  if (!entry.answered_at || *entry.answered_at - entry.at > timeout) {
    return "no answer within the client's timeout of " + std::to_string(timeout.count()) + " ms";
  }
  return {};
}

// What a create got, in words: "the provider replayed job_1", "it created job_2", ...
inline std::string what_it_got(const JournalEntry& entry) {
  const std::string job = entry.job_id.value_or("?");
  switch (entry.outcome) {
    case provider::Outcome::replay:
      return "the provider replayed " + job;
    case provider::Outcome::new_operation:
      return entry.job_id ? "it created " + job
                          : "it created nothing (" + std::to_string(status_of(entry)) + ")";
    case provider::Outcome::conflict:
      return "it got 409: the first request was still in flight";
    case provider::Outcome::rejected:
      return "it was refused with 422";
    default:
      return "it got " +
             (entry.status ? std::to_string(*entry.status) : std::string("no response"));
  }
}

// "invocation 2 (fulfillment:order-42)"
inline std::string label(const InvocationResult& invocation) {
  return "invocation " + std::to_string(invocation.number()) + " (" + invocation.operation + ")";
}

}  // namespace retryproof::scenarios::checkers
