#include "proxy/upstream_answer.hpp"

#include <algorithm>
#include <stdexcept>

#include "provider/responses.hpp"

namespace retryproof::proxy {

const std::vector<UpstreamFailureRow>& upstream_failure_table() {
  using enum UpstreamFailure;
  static const std::vector<UpstreamFailureRow> table = {
      {unreachable, "unreachable", 502, "upstream_unreachable"},
      {timeout, "timeout", 504, "upstream_timeout"},
      {closed, "closed", 502, "upstream_closed"},
      {malformed, "malformed", 502, "upstream_bad_response"},
      {tls, "tls", 502, "upstream_tls_error"},
      {stopping, "stopping", 503, "proxy_stopping"},
  };
  return table;
}

const UpstreamFailureRow& row_of(UpstreamFailure failure) {
  const auto& table = upstream_failure_table();
  const auto row = std::find_if(
      table.begin(), table.end(),
      [&](const UpstreamFailureRow& candidate) { return candidate.failure == failure; });
  if (row == table.end()) throw std::logic_error("an upstream failure without a row");
  return *row;
}

provider::Decision as_decision(const UpstreamAnswer& answer) {
  provider::Decision decision{
      .status = answer.status, .headers = answer.headers, .body = answer.body};
  decision.content_type = answer.content_type;
  return decision;
}

provider::Decision failure_decision(const UpstreamAnswer& answer,
                                    const provider::ErrorStyle& errors) {
  const UpstreamFailureRow& row = row_of(answer.failure);
  return errors.error(row.status, row.error_code, answer.detail);
}

}  // namespace retryproof::proxy
