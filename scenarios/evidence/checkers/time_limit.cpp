// time-limit (policy): every invocation ends within the scenario's time limit. A client
// still retrying there is stopped by the harness; that is no broken output (client-error),
// but a schedule longer than the scenario allows.
#include <span>
#include <string>

#include "common/duration.hpp"
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

namespace {

// What the invocation's journal says it was doing when it was stopped: the schedule's
// fault only when it was still sending.
std::string what_it_was_doing(const InvocationResult& invocation,
                              std::span<const JournalEntry> entries) {
  if (invocation.outcome) {
    return "; it had printed its outcome (" + to_string(invocation.outcome->outcome) +
           ") yet did not exit: something it started (a timer, a socket) kept it alive, or it "
           "was starved of CPU on its way out (many clients on few cores)";
  }
  if (entries.empty()) {
    return ": it never reached the provider. It may be slow to start on a loaded machine, or "
           "waiting on something before its first request (a wrong URL, a prompt)";
  }
  return "; its last request (" + seq_text(entries.back()) + ") came " +
         std::to_string((entries.back().at - invocation.started_at).count()) +
         " ms after it started. Its retry schedule outlasts the scenario: shorten it, or give "
         "the scenario a longer timeLimit";
}

}  // namespace

Verdict time_limit(const Evidence& evidence) {
  Violations violations;
  const Millis limit = evidence.scenario().time_limit;
  for (const auto& invocation : evidence.invocations()) {
    if (!invocation.timed_out) continue;
    violations.add(label(invocation) + " was still running at the time limit of " +
                       format_duration(limit) + " and was stopped" +
                       what_it_was_doing(invocation, evidence.entries_of(invocation)),
                   {});
  }
  return std::move(violations).verdict("every invocation ended within " + format_duration(limit));
}

}  // namespace retryproof::scenarios::checkers
