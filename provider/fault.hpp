// The catalogue of ways the provider can fail a new operation (or a lookup).
#pragma once

#include <string>
#include <string_view>

#include "provider/http_types.hpp"

namespace retryproof::provider {

enum class FaultKind {
  none,                  // 201, stored
  fail_before_commit,    // 503, nothing stored
  commit_then_error,     // stored, then 503
  commit_then_drop,      // stored, then FIN without a byte of response
  commit_then_reset,     // stored, then RST without a byte of response
  drop_before_commit,    // FIN without a response, and nothing stored
  commit_then_delay,     // stored, 201 sent only after `duration`
  delay_before_commit,   // held in flight for `duration` (409 to duplicates), then stored, 201
  rate_limited,          // 429 with Retry-After: `retry_after_seconds`; nothing stored
  commit_then_truncate,  // stored; the status line, headers and half the body, then FIN
  commit_then_500,       // stored, then 500
  lookup_unavailable,    // taken by the next lookup instead: 503 whatever is stored
};

struct Fault {
  FaultKind kind = FaultKind::none;
  Millis duration{0};           // the two delays
  int retry_after_seconds = 1;  // rate-limited

  friend bool operator==(const Fault&, const Fault&) = default;
};

// The fault as written in plans and logs: "commit-then-drop", "commit-then-delay:250ms",
// "rate-limited:3" ("rate-limited" for the default of one second).
std::string to_string(const Fault& fault);

// Parses a fault as written in a plan. Throws std::invalid_argument with a message that
// names the text and says what is accepted.
Fault parse_fault(std::string_view text);

}  // namespace retryproof::provider
