// What a client is sent for a fault: its catalogue row's answer (its status and error code,
// its delivery, its hold, its Retry-After). The provider's and the proxy's answers alike.
#pragma once

#include "provider/fault.hpp"
#include "provider/http_types.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {

// A row whose status is 201 (the created job) answers `created`: the provider's new job, or
// the upstream's own answer at the proxy (required for those rows; std::logic_error without).
// Its error, if any, is written in `errors` (the API shape's format).
Decision fault_answer(const Fault& fault, const Decision* created, const ErrorStyle& errors = {});

}  // namespace retryproof::provider
