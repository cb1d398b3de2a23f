#include "scenarios/evidence/breaker_replay.hpp"

#include <algorithm>

#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios {
namespace {

// The client's timer and the provider's clock are not one clock: a create the provider
// answered this close to the timeout may have timed out for the client (in the simulation, one
// answered at the timeout's very millisecond did).
constexpr Millis kTimerTolerance{100};

// A create as its client saw it: when its answer (or its failure) reached it, and which.
struct Seen {
  const JournalEntry* create;
  Millis at;
  bool failed;
};

std::vector<Seen> seen_by_client(const std::vector<const JournalEntry*>& creates, Millis timeout) {
  std::vector<Seen> seen;
  for (const JournalEntry* create : creates) {
    const bool failed = failed_for_client(*create, timeout);
    Millis at = create->at + timeout;
    if (create->answered_at && (!failed || *create->answered_at < at)) at = *create->answered_at;
    if (create->abandoned_at) at = std::min(at, *create->abandoned_at);
    seen.push_back({create, at, failed});
  }
  std::stable_sort(seen.begin(), seen.end(),
                   [](const Seen& a, const Seen& b) { return a.at < b.at; });
  return seen;
}

// Whether the breaker could have been open at `at`: the instance's answers replayed in the
// order they reached it. F failures in a row open it; a failure while open (a probe's, or a
// straggler's) keeps it open from then; only a probe's success closes it, and a probe is sent T
// after it opened at the soonest: a served answer to a create sent sooner is a straggler's (sent
// as it opened, on another thread) and leaves it open. It is open at `at` if it
// opened no longer ago than T, a timeout and a grace, or if a create sent since is still out
// (the probe that keeps the others out).
bool possibly_open(const std::vector<Seen>& seen, Millis at, const JudgedPolicy& policy,
                   Millis timeout) {
  const client::BreakerSettings& breaker = *policy.breaker;
  int failed_in_a_row = 0;
  std::optional<Millis> opened_at;
  for (const Seen& answer : seen) {
    if (answer.at > at) break;
    if (answer.failed) {
      if (opened_at || ++failed_in_a_row >= breaker.failures) opened_at = answer.at;
    } else if (!opened_at || answer.create->at + kTimerTolerance >= *opened_at + breaker.open_for) {
      opened_at.reset();
      failed_in_a_row = 0;
    }
  }
  if (!opened_at) return false;
  if (at - *opened_at <= breaker.open_for + timeout + kRecoveryGrace) return true;
  return std::any_of(seen.begin(), seen.end(), [&](const Seen& answer) {
    return answer.create->at + kTimerTolerance >= *opened_at && answer.create->at <= at &&
           answer.at > at;
  });
}

// Whether it could have been open at some moment from `from` to `until`: when the client
// decided to stop is not known to the millisecond (over HTTP a session's outcome is collected
// a slice after it was printed), only that it was after its last answer reached it. Between
// answers openness only wanes, so the moments to ask are `from`, each answer's arrival, and
// just before each.
bool possibly_open_between(const std::vector<Seen>& seen, Millis from, Millis until,
                           const JudgedPolicy& policy, Millis timeout) {
  if (possibly_open(seen, from, policy, timeout) || possibly_open(seen, until, policy, timeout))
    return true;
  return std::any_of(seen.begin(), seen.end(), [&](const Seen& answer) {
    if (answer.at <= from || answer.at > until) return false;
    return possibly_open(seen, answer.at - Millis(1), policy, timeout) ||
           possibly_open(seen, answer.at, policy, timeout);
  });
}

// When the invocation's last answer reached it (its own requests'), or its start.
Millis last_answer_seen(const Evidence& evidence, const InvocationResult& invocation,
                        Millis timeout) {
  Millis last = invocation.started_at;
  for (const JournalEntry& entry : evidence.entries_of(invocation)) {
    Millis at = entry.at + timeout;
    if (entry.answered_at) at = std::min(at, *entry.answered_at);
    if (entry.abandoned_at) at = std::min(at, *entry.abandoned_at);
    last = std::max(last, at);
  }
  return std::min(last, invocation.ended_at);
}

}  // namespace

namespace {

// The creates of each run an instance served, grouped by `key_of` it, each group in seq order.
template <typename KeyOf>
std::map<int, std::vector<const JournalEntry*>> creates_by(const Evidence& evidence, KeyOf key_of) {
  std::map<int, std::vector<const JournalEntry*>> creates;
  for (const InvocationResult& invocation : evidence.invocations()) {
    if (!invocation.instance) continue;
    auto& mine = creates[key_of(invocation)];
    for (const JournalEntry* create : evidence.creates_of(invocation))
      mine.push_back(create);
  }
  for (auto& [instance, mine] : creates) {
    std::sort(mine.begin(), mine.end(),
              [](const JournalEntry* a, const JournalEntry* b) { return a->seq < b->seq; });
  }
  return creates;
}

}  // namespace

std::map<int, std::vector<const JournalEntry*>> creates_by_instance(const Evidence& evidence) {
  return creates_by(evidence, [](const InvocationResult& run) { return *run.instance; });
}

std::vector<bool> stopped_by_breaker(const Evidence& evidence) {
  const auto& invocations = evidence.invocations();
  std::vector<bool> stopped(invocations.size(), false);
  if (!evidence.policy().breaker) return stopped;
  const Millis timeout = std::max(Millis(0), evidence.policy().timeout - kTimerTolerance);
  // Each process's breaker: a restarted one begins closed.
  std::map<int, std::vector<Seen>> seen;
  for (const auto& [guards, creates] : creates_by(evidence, guards_of))
    seen.emplace(guards, seen_by_client(creates, timeout));
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    const InvocationResult& invocation = invocations[i];
    const bool stopped_short =
        invocation.outcome && invocation.outcome->outcome != Reported::succeeded;
    if (!stopped_short || !invocation.instance || !seen.contains(guards_of(invocation))) continue;
    stopped[i] = possibly_open_between(seen.at(guards_of(invocation)),
                                       last_answer_seen(evidence, invocation, timeout),
                                       invocation.ended_at, evidence.policy(), timeout);
  }
  return stopped;
}

}  // namespace retryproof::scenarios
