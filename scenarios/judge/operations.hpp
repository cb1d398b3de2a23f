// Which operation each request of a journal belongs to, when no run says so: a service
// judged by its traffic alone makes its own calls, with keys it chose. A create belongs to
// the business operation its payload named (the `operation` the provider recorded from
// --operation-field), not to its key; a lookup, and a create whose payload named none,
// belong to the operation of their key. Without recorded operations each key is one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "provider/journal.hpp"

namespace retryproof::scenarios {

struct OperationTraffic {
  std::string name;  // "orderId=order-42", or "key=K" for a key no create named an operation for
  std::vector<provider::JournalEntry> entries;  // in seq order
};

struct Attribution {
  std::vector<OperationTraffic> operations;  // in the order of their first request
  std::vector<std::uint64_t> unattributed;   // requests with no key, or a key no create sent
  bool by_key = false;                       // no create recorded an operation
};

// `label` names the operation field in operation names ("orderId"): "orderId=order-42".
Attribution attribute(const std::vector<provider::JournalEntry>& journal, const std::string& label);

}  // namespace retryproof::scenarios
