#include "scenarios/judge/operations.hpp"

#include <algorithm>
#include <map>

#include "common/utf8.hpp"

namespace retryproof::scenarios {

using provider::JournalEntry;
using provider::RequestKind;

Attribution attribute(const std::vector<JournalEntry>& journal, const std::string& label) {
  Attribution attribution;
  attribution.by_key = std::none_of(journal.begin(), journal.end(), [](const JournalEntry& entry) {
    return entry.kind == RequestKind::create && entry.operation.has_value();
  });

  // Each key belongs to the operation of the first create that sent it with an operation;
  // failing that, to itself. Decided over the whole journal first, so that a lookup made
  // before its key's first create (a service that asks before it sends) is attributed too.
  std::map<std::string, std::string> owner_of_key;
  for (const JournalEntry& entry : journal) {
    if (entry.kind == RequestKind::create && entry.key && entry.operation)
      owner_of_key.emplace(*entry.key, label + "=" + *entry.operation);
  }
  for (const JournalEntry& entry : journal) {
    if (entry.kind == RequestKind::create && entry.key) {
      owner_of_key.emplace(*entry.key, "key=" + escape_text(*entry.key));
    }
  }

  std::map<std::string, std::size_t> index_of_operation;
  for (const JournalEntry& entry : journal) {
    std::string operation;
    // A create names its operation; so does a lookup by the business field, under an API
    // without keys (it records no key, and the value it asked for as its operation).
    if ((entry.kind == RequestKind::create || !entry.key) && entry.operation) {
      operation = label + "=" + *entry.operation;
    } else if (const auto owner = entry.key ? owner_of_key.find(*entry.key) : owner_of_key.end();
               owner != owner_of_key.end()) {
      operation = owner->second;
    } else {
      attribution.unattributed.push_back(entry.seq);
      continue;
    }
    const auto [at, added] = index_of_operation.emplace(operation, attribution.operations.size());
    if (added) attribution.operations.push_back({operation, {}});
    attribution.operations[at->second].entries.push_back(entry);
  }
  return attribution;
}

}  // namespace retryproof::scenarios
