// GET /_test/verdicts: the control plane of a provider (or of a proxy) judges its own
// journal, live, as `retryproof judge` judges a saved one, and answers its report. Query
// parameters:
//   operationField=orderId   the server's --operation-field (default: it; without one,
//                            operations are idempotency keys)
//   policy=attempts=3,min-backoff=100ms   what the service promises, as --client-policy
//   format=json|junit|markdown|html|text  the report (default json; text is the terminal's)
#pragma once

#include <string>
#include <string_view>

#include "provider/provider_core.hpp"
#include "scenarios/judge/traffic.hpp"
#include "scenarios/model/client_policy.hpp"

namespace retryproof::scenarios {

// The endpoint, for ProviderConfig::control_endpoints and ProxyConfig::control_endpoints.
provider::ControlEndpoint verdicts_endpoint();

struct VerdictsQuery {
  TrafficOptions traffic;
  std::string format = "json";  // a report format's option, or "text"
};

// What a query asks for, of a `server` ("provider", "proxy") that records `recorded_field`
// (empty: none). Throws std::invalid_argument naming the parameter that is wrong and what
// to send.
VerdictsQuery verdicts_query(const std::string& query, const std::string& recorded_field,
                             std::string_view server = "provider");

}  // namespace retryproof::scenarios
