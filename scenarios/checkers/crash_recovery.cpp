// crash-recovery: after a kill, the rerun's first request is a lookup of its intent, and no
// second job appears.
#include <algorithm>

#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict crash_recovery(const Evidence& evidence) {
  Violations violations;
  bool any_kill = false;
  const auto& invocations = evidence.invocations();
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    if (!invocations[i].killed) continue;
    any_kill = true;
    const std::string& operation = invocations[i].operation;
    // The restart is the next run asked for the same operation with the same payload: one
    // asked for another payload is a new request, not a resume of the killed one's intent.
    const auto rerun = std::find_if(invocations.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                    invocations.end(), [&](const InvocationResult& later) {
                                      return later.operation == operation &&
                                             later.payload == invocations[i].payload;
                                    });
    if (rerun == invocations.end()) continue;
    const auto entries = evidence.entries_of(*rerun);
    if (!entries.empty() && entries.front().kind != provider::RequestKind::lookup) {
      violations.add("after the restart, the first request for " + operation + " was " +
                         entries.front().method + " " + entries.front().path + " (" +
                         seq_text(entries.front()) +
                         "); the planned intent had to be looked up first",
                     {entries.front().seq});
    }
  }
  if (!any_kill) return not_applicable("no client was killed");
  const Verdict duplicates = verdict_row("no-duplicate-effect").check(evidence);
  if (duplicates.status == VerdictStatus::fail) {
    violations.add("after the restart: " + duplicates.explanation, duplicates.evidence);
  }
  return std::move(violations)
      .verdict("the restarted client looked up its intent and created no second job");
}

}  // namespace retryproof::scenarios::checkers
