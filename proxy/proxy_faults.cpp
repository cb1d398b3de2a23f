#include "proxy/proxy_faults.hpp"

#include <algorithm>
#include <stdexcept>

#include "provider/responses.hpp"

namespace retryproof::proxy {

using provider::FaultKind;

const std::vector<ProxyFaultRow>& proxy_fault_table() {
  using enum ProxyAction;
  static const std::vector<ProxyFaultRow> table = {
      {FaultKind::none, forward, "forwarded; the client gets the upstream's answer"},
      {FaultKind::fail_before_commit, answer_here, "not forwarded; 503 temporarily_unavailable"},
      {FaultKind::commit_then_error, forward_then_replace,
       "forwarded; once the upstream has committed, 503 temporarily_unavailable instead"},
      {FaultKind::commit_then_drop, forward_then_replace,
       "forwarded; once the upstream has committed, FIN without one byte"},
      {FaultKind::commit_then_reset, forward_then_replace,
       "forwarded; once the upstream has committed, RST without one byte"},
      {FaultKind::drop_before_commit, answer_here, "not forwarded; FIN without one byte"},
      {FaultKind::commit_then_truncate, forward_then_replace,
       "forwarded; once the upstream has committed, its answer's head and half its body, FIN"},
      {FaultKind::commit_then_500, forward_then_replace,
       "forwarded; once the upstream has committed, 500 internal_error instead"},
      {FaultKind::rate_limited, answer_here, "not forwarded; 429 with Retry-After"},
      {FaultKind::lookup_unavailable, answer_here, "the next lookup is not forwarded; 503"},
      {FaultKind::commit_then_delay, forward_then_replace,
       "forwarded at once; the upstream's answer is held, then sent"},
      {FaultKind::delay_before_commit, hold_then_forward,
       "held, then forwarded; the client gets the upstream's answer"},
      {FaultKind::reset_before_commit, answer_here, "not forwarded; RST without one byte"},
  };
  return table;
}

const ProxyFaultRow& proxy_row_of(FaultKind kind) {
  const auto& table = proxy_fault_table();
  const auto row = std::find_if(table.begin(), table.end(), [&](const ProxyFaultRow& candidate) {
    return candidate.kind == kind;
  });
  if (row == table.end()) throw std::logic_error("a fault without a row in the proxy's table");
  return *row;
}

}  // namespace retryproof::proxy
