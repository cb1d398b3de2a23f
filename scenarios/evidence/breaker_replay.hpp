// A declared circuit breaker (breaker=F/T), replayed over the journal as generously as the
// journal allows: the instance's creates' answers in the order they reached it, each timeout a
// little early (the two clocks differ), stragglers' answers after it opened ignored, and a
// create still out after it opened taken for a probe that keeps the others out. It says
// "possibly open" wherever a breaker of F/T could have been, so that a stop then is never
// called a give-up.
#pragma once

#include <map>
#include <vector>

#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

// Each instance's creates, in the order they reached the provider (by seq), where long-lived
// instances serve many operations (InvocationResult::instance).
std::map<int, std::vector<const JournalEntry*>> creates_by_instance(const Evidence& evidence);

// By invocation index: whether its instance's declared breaker was possibly open when it ended
// short of success (so a stop then, with attempts left or before any request, is the breaker's
// doing). All false without a declared breaker, for invocations no instance served, and for
// those that succeeded.
std::vector<bool> stopped_by_breaker(const Evidence& evidence);

}  // namespace retryproof::scenarios
