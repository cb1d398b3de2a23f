// `run --api NAME|FILE`: the whole catalog on another API's wire. Each scenario keeps its
// faults, operations, invocations and profile (the semantics its expectations assume),
// and its provider speaks the given shape; the client
// maps each operation's payload to its SDK's call. A scenario that cannot mean the same on
// that API is skipped, with the reason.
#pragma once

#include <string>

#include "provider/api_shape.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// Puts `scenario` on `shape`'s wire and returns "", or returns why it cannot be (and leaves
// it as it was): it is written for another API, its fault fails lookups the API does not
// have, or it is pinned to a client that speaks only the seeds' wire. Under an API without
// keys the scenario's expected job count and outcomes, which assume a key the provider
// enforces, give way to the verdicts alone.
std::string put_on_shape(Scenario& scenario, const provider::ApiShape& shape);

}  // namespace retryproof::scenarios
