// A declared retry budget, replayed over the journal: each instance's token bucket as the
// declaration says it works (a first request adds the budget's share of a token, up to
// kRetryBudgetBurst; each later request of an operation takes one), so that a client that
// stopped because its instance's budget was spent is not told it gave up with attempts left.
#pragma once

#include <vector>

#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

// By invocation index: whether its instance's bucket held less than one token at some moment
// between its last request and its end (when it decided not to send another). All false
// without traffic or a declared budget.
std::vector<bool> stopped_by_budget(const Evidence& evidence);

}  // namespace retryproof::scenarios
