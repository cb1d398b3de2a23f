// recovery (policy): no storm outlives its trigger. After an outage ends, every client the
// outage caught sends its last request within its longest backoff (declared max-backoff, or
// the scenario's client.maxDelay), one more timeout and a grace for the machine (fleet.hpp): it
// succeeded at its next attempt, or it had given up. A client still retrying past that is load the
// service sees after it has recovered — Bronson et al. (HotOS 2021) describe a database that stayed
// down for it.
#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios::checkers {

Verdict recovery(const Evidence& evidence) {
  const std::vector<OutageWindow> outages = outage_windows(evidence.scenario());
  if (outages.empty()) return not_applicable("no outage to recover from");
  const Millis bound = evidence.policy().max_backoff + evidence.policy().timeout + kRecoveryGrace;
  Violations violations;
  int caught = 0;
  for (const OutageWindow& outage : outages) {
    for (const InvocationResult& invocation : evidence.invocations()) {
      const auto entries = evidence.entries_of(invocation);
      const bool in_it =
          std::any_of(entries.begin(), entries.end(),
                      [&](const JournalEntry& entry) { return outage.holds(entry.at); });
      if (!in_it) continue;
      ++caught;
      const JournalEntry& last = entries.back();
      if (last.at < outage.until + bound) continue;
      violations.add(label(invocation) + " was still sending " +
                         std::to_string((last.at - outage.until).count()) +
                         " ms after the outage ended (" + seq_text(last) + "); the bound is " +
                         std::to_string(bound.count()) +
                         " ms: its longest backoff, one timeout, and " +
                         std::to_string(kRecoveryGrace.count()) + " ms",
                     {last.seq});
    }
  }
  if (caught == 0) return not_applicable("no client sent a request during the outage");
  return std::move(violations)
      .verdict("the " + std::to_string(caught) + " clients the outage caught were done within " +
               std::to_string(bound.count()) + " ms of its end");
}

}  // namespace retryproof::scenarios::checkers
