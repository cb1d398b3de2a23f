// What the checkers share: a collector of violations that turns into a verdict, and the
// small readings of an entry that several rules make.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "scenarios/evidence.hpp"
#include "scenarios/verdicts.hpp"

namespace retryproof::scenarios::checkers {

// A checker's verdict carries no id: judge() gives it the id of its row in verdict_table().
inline Verdict pass(std::string explanation) {
  return {{}, VerdictStatus::pass, std::move(explanation), {}};
}

inline Verdict not_applicable(std::string explanation) {
  return {{}, VerdictStatus::not_applicable, std::move(explanation), {}};
}

// Collects violations; the first explains the verdict, every one adds its evidence.
class Violations {
 public:
  void add(std::string explanation, std::vector<std::uint64_t> seqs) {
    explanations_.push_back(std::move(explanation));
    evidence_.insert(evidence_.end(), seqs.begin(), seqs.end());
  }
  bool any() const { return !explanations_.empty(); }

  Verdict verdict(std::string if_none) && {
    if (explanations_.empty()) return pass(std::move(if_none));
    std::sort(evidence_.begin(), evidence_.end());
    evidence_.erase(std::unique(evidence_.begin(), evidence_.end()), evidence_.end());
    std::string text = explanations_.front();
    if (explanations_.size() > 1)
      text += " (and " + std::to_string(explanations_.size() - 1) + " more)";
    return {{}, VerdictStatus::fail, std::move(text), std::move(evidence_)};
  }

 private:
  std::vector<std::string> explanations_;
  std::vector<std::uint64_t> evidence_;
};

// The key an entry named, or "" when it named none.
inline std::string key_text(const JournalEntry& entry) {
  return entry.key.value_or("");
}

inline int status_of(const JournalEntry& entry) {
  return entry.status.value_or(0);
}

// "invocation 2 (fulfillment:order-42)"
inline std::string label(const InvocationResult& invocation) {
  return "invocation " + std::to_string(invocation.number()) + " (" + invocation.operation + ")";
}

}  // namespace retryproof::scenarios::checkers
