// key-stability: all creates of one operation carry one key.
#include <set>

#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict key_stability(const Evidence& evidence) {
  if (evidence.keyless()) return not_applicable("the API has no idempotency key");
  Violations violations;
  for (const auto& operation : evidence.operation_ids()) {
    std::vector<const JournalEntry*> first_of_each_key;
    std::set<std::string> keys;
    for (const JournalEntry* create : evidence.creates_of_operation(operation)) {
      if (keys.insert(key_text(*create)).second) first_of_each_key.push_back(create);
    }
    if (first_of_each_key.size() <= 1) continue;
    std::string listing;
    std::vector<std::uint64_t> seqs;
    for (const JournalEntry* create : first_of_each_key) {
      listing += (listing.empty() ? "" : ", ") + key_text(*create) + " (" + seq_text(*create) + ")";
      seqs.push_back(create->seq);
    }
    violations.add("operation " + operation + " was sent with " +
                       std::to_string(first_of_each_key.size()) + " keys: " + listing +
                       "; every attempt must carry one key",
                   seqs);
  }
  return std::move(violations).verdict("every operation was sent with one key");
}

}  // namespace retryproof::scenarios::checkers
