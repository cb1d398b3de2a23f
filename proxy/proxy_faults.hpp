// What each fault of the catalogue means in front of an upstream, one row per fault: the
// same failure relative to the upstream's commit as the provider's own. A fault that
// never commits is answered by the proxy, and nothing is forwarded; a fault that commits
// before its answer is forwarded, the upstream's whole answer is read, and the client
// gets the fault instead; a fault that commits after a hold is held, then forwarded.
#pragma once

#include <string_view>
#include <vector>

#include "provider/fault.hpp"
#include "provider/fault_answer.hpp"
#include "provider/http_types.hpp"
#include "provider/responses.hpp"

namespace retryproof::proxy {

enum class ProxyAction {
  forward,               // the upstream's answer, as it is (none)
  answer_here,           // nothing forwarded: the proxy answers as the fault's row says
  forward_then_replace,  // forwarded; the upstream's whole answer read; the fault sent instead
  hold_then_forward,     // held for the fault's duration, then forwarded
};

struct ProxyFaultRow {
  provider::FaultKind kind;
  ProxyAction action;
  std::string_view effect;  // what the upstream and the client see, for help and docs
};

// Every fault of provider::fault_catalogue(), in its order.
const std::vector<ProxyFaultRow>& proxy_fault_table();
const ProxyFaultRow& proxy_row_of(provider::FaultKind kind);

// What the client is sent for `fault` (provider/fault_answer.hpp): a row whose answer is the
// created job means the upstream's own answer.
using provider::fault_answer;

}  // namespace retryproof::proxy
