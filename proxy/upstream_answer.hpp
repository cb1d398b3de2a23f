// What came back from the upstream for one forwarded request: its answer, or why there is
// none. A failure is one row of a table: the status and error code the client is sent
// instead (never a hang, never a silent close), and its name in the journal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "provider/http_types.hpp"
#include "provider/responses.hpp"

namespace retryproof::proxy {

enum class UpstreamFailure {
  none,
  unreachable,  // no connection: refused, no route, the host has no address
  timeout,      // no connection, or no complete answer, within the deadline
  closed,       // the upstream closed or reset the connection before a complete answer
  malformed,    // the answer is not HTTP/1.x, or is over the proxy's limits
  tls,          // an https upstream: its certificate did not verify, or no TLS handshake
  stopping,     // the proxy is stopping: the exchange was ended (or never begun)
};

struct UpstreamAnswer {
  UpstreamFailure failure = UpstreamFailure::none;
  std::string detail;  // a failure's account, for a person
  // The answer, when there is no failure. Headers without hop-by-hop and framing fields.
  int status = 0;
  provider::Headers headers;
  std::string content_type;
  std::string body;
};

struct UpstreamFailureRow {
  UpstreamFailure failure;
  std::string_view name;  // the journal's "upstreamError"
  int status;             // what the client is sent
  std::string_view error_code;
};

// Every failure but none.
const std::vector<UpstreamFailureRow>& upstream_failure_table();
const UpstreamFailureRow& row_of(UpstreamFailure failure);

// The upstream's answer as the client is sent it: its status, headers and body.
provider::Decision as_decision(const UpstreamAnswer& answer);
// The proxy's own answer to a failure: the row's status and error code, with the failure's
// detail, written in `errors` (the API shape's format; {"error", "detail"} by default).
provider::Decision failure_decision(const UpstreamAnswer& answer,
                                    const provider::ErrorStyle& errors = {});

}  // namespace retryproof::proxy
