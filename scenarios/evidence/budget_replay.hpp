// A declared retry budget, replayed over the journal: each instance's token bucket at its
// emptiest, as Brooker's and boto3's standard mode keep it (a success adds the budget's share
// of a token, up to the declared burst; each later request of an operation takes one). A
// client whose bucket fills faster (the reference client's adds its share at every first
// request) is never emptier than this, so a client that stopped because its instance's
// budget was spent is not told it gave up with attempts left.
#pragma once

#include <vector>

#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

// By invocation index: whether its instance's bucket held less than one token (and a token's
// slack for the order requests arrive in) at some moment from its last request to its end
// (when it decided not to send another) and one longest backoff after (a client takes a
// retry's token when it decides, and sends the retry after its backoff). All false without
// a declared budget, and for invocations no instance served (InvocationResult::instance). All false
// without traffic or a declared budget.
std::vector<bool> stopped_by_budget(const Evidence& evidence);

}  // namespace retryproof::scenarios
