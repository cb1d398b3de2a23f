// The catalogue of ways the provider can fail a new operation.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::provider {

enum class FaultKind {
  none,                // 201, stored
  fail_before_commit,  // 503, nothing stored
  commit_then_error,   // stored, then 503
  commit_then_drop,    // stored, then the connection closes without a byte of response
};

struct Fault {
  FaultKind kind = FaultKind::none;

  friend bool operator==(const Fault&, const Fault&) = default;
};

// The fault's name as written in plans and logs, for example "commit-then-drop".
std::string to_string(const Fault& fault);

// Parses a fault name exactly as written in a plan. Throws std::invalid_argument with a
// message that names the text and lists the catalogue when the name is unknown.
Fault parse_fault(std::string_view text);

}  // namespace retryproof::provider
