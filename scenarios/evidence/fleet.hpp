// What the fleet verdicts read: the outages a scenario's plan holds, each attempt's failure
// and the retry that followed it, and the thresholds that define a storm. Pure functions of
// the evidence, so both worlds and a saved journal are judged alike.
#pragma once

#include <map>
#include <vector>

#include "common/millis.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/model/outage.hpp"

namespace retryproof::scenarios {

// The plan's outages, in the order it lists them.
std::vector<OutageWindow> outage_windows(const Scenario& scenario);

// An invocation's requests that load the service, creates and lookups, in its order: its
// first, then its retries — every later one, a create sent again or a lookup after an outcome
// it could not see. What a retry budget counts (retry-budget, stopping).
struct LoadRequest {
  const JournalEntry* entry = nullptr;
  bool first = false;
};
// How many times each instance (by InvocationResult::instance) was killed under traffic with
// an operation in flight: a kill ends one of its processes, so the kills are the distinct
// processes its killed runs ran in.
std::map<int, std::size_t> kills_by_instance(const std::vector<InvocationResult>& invocations);

// The guards a run's retries and breaker were those of: its instance's process at the time (a
// restart begins with a full budget and a closed breaker). A key for replays per process, never
// shown; only for runs an instance served.
inline int guards_of(const InvocationResult& invocation) {
  constexpr int kProcessStride = 1 << 20;  // above any instance's number
  return *invocation.instance + invocation.process * kProcessStride;
}

std::vector<LoadRequest> load_requests(const Evidence& evidence,
                                       const InvocationResult& invocation);

// Whether an answer to a create failed for its client: not a success (a 5xx, a 429, a
// connection dropped, reset or cut) or none within its timeout.
bool failed_for_client(const JournalEntry& entry, Millis timeout);

// A create that failed for its client, and the client's next create: its retry. A lookup
// between them is not a retry: after an outcome it could not see, a careful client asks at
// once, and a lookup is a read the service can answer from its store (load-amplification
// bounds lookups by creates). `number` counts the invocation's retries from 1.
struct Retry {
  const JournalEntry* failure = nullptr;
  const JournalEntry* retry = nullptr;
  Millis wait{0};  // from the moment the failure reached the client to the retry's arrival
  int number = 1;
};

// Every invocation's retries, in its order; a failure as failed_for_client says.
std::vector<Retry> retries(const Evidence& evidence);

// retry-spread's measure. The n-th retries of a fleet are a wave: with a fixed wait (no
// jitter), clients that fail together retry together, however spread the rest of their
// traffic is. A wave's spread is the range of its middle 80% of waits (a tenth, at least
// one, dropped at each end, so that one client the machine delayed does not hide the rest).
// A wave of at least kSmallestWave is synchronised when that spread is under the largest of
// kLeastSpreadShare of its median wait, kLeastSpread, and kBackoffShare of the backoff floor
// the client is judged by: a wait without jitter is spread only by the machine's noise
// (nothing in simulation), while equal jitter, the narrowest common one (half the step
// random), spreads a wave of 10 that narrowly with a chance of about 3e-6 (full and
// decorrelated jitter less). got's 0-100 ms on a 1 s step passes with no declared floor and
// fails with its declared 1 s one (a tenth of it is 100 ms); a 0 ms wait (retries at once)
// never passes.
constexpr std::size_t kSmallestWave = 10;
constexpr double kLeastSpreadShare = 0.01;
constexpr Millis kLeastSpread{5};
constexpr double kBackoffShare = 0.1;

// recovery's bound: after an outage ends, a client is allowed its longest backoff and one
// more attempt's timeout, and this much more for the machine, to finish.
constexpr Millis kRecoveryGrace{1000};

}  // namespace retryproof::scenarios
