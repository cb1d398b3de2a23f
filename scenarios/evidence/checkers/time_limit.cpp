// time-limit (policy): every invocation ends within the scenario's time limit. A client
// still retrying there is stopped by the harness; that is no broken output (client-error),
// but a schedule longer than the scenario allows.
#include "common/duration.hpp"
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict time_limit(const Evidence& evidence) {
  Violations violations;
  const Millis limit = evidence.scenario().time_limit;
  for (const auto& invocation : evidence.invocations()) {
    if (!invocation.timed_out) continue;
    const auto entries = evidence.entries_of(invocation);
    const std::string last =
        entries.empty() ? "it sent no request"
                        : "its last request (" + seq_text(entries.back()) + ") came " +
                              std::to_string((entries.back().at - invocation.started_at).count()) +
                              " ms after it started";
    const std::string why =
        invocation.outcome
            ? "; it had printed its outcome (" + to_string(invocation.outcome->outcome) +
                  ") yet did not exit: something it started (a timer, a socket) kept it alive"
            : ". Its retry schedule outlasts the scenario: shorten it, or give the scenario a "
              "longer timeLimit";
    violations.add(label(invocation) + " was still running at the time limit of " +
                       format_duration(limit) + " and was stopped; " + last + why,
                   {});
  }
  return std::move(violations).verdict("every invocation ended within " + format_duration(limit));
}

}  // namespace retryproof::scenarios::checkers
