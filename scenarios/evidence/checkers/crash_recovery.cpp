// crash-recovery: after a kill, the restart (the next run of the operation with the same
// payload) creates no second job — harm — and, under lookup-first, asks by key before it
// sends anything — policy: a killed client cannot know what its last request did.
#include <algorithm>

#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {
namespace {

using Runs = std::vector<InvocationResult>;

// The harm: a job the restart created, though one of the operation's existed from before it.
// A job the killed client's late request made (its connection's, read after the restart
// began) is from before the restart too: it was sent before the kill.
void second_jobs(const Evidence& evidence, const InvocationResult& killed,
                 const InvocationResult& restart, Violations& violations) {
  std::vector<std::string> before;
  for (const JobRecord* job : evidence.jobs_of_operation(killed.operation)) {
    const JournalEntry* created = evidence.creation_of(job->id);
    if (created == nullptr) continue;
    const std::optional<int> charged = evidence.invocation_of(created->seq);
    if (created->seq < restart.first_seq || (charged && *charged < restart.index))
      before.push_back(job->id);
  }
  if (before.empty()) return;
  for (const JournalEntry* create : evidence.creates_of(restart)) {
    if (create->outcome != provider::Outcome::new_operation || !create->job_id) continue;
    violations.add("the restart after the kill created a second job, " + *create->job_id + " (" +
                       seq_text(*create) + ", key " + key_text(*create) + "), though " +
                       before.front() +
                       " existed from before the kill: the operation's key must "
                       "survive a crash (derive it from the operation, or keep it durably)",
                   {create->seq}, Severity::harm);
  }
}

// The policy, under lookup-first: the restart's first request asks by key. Runs killed before
// they sent anything left nothing unknown: the restart may create at once if no earlier run of
// the operation sent a request (a kill under traffic can find one that had not sent yet).
void lookup_first(const Evidence& evidence, const InvocationResult& killed,
                  Runs::const_iterator restart, Violations& violations) {
  if (evidence.policy().on_ambiguous != OnAmbiguous::lookup_first) return;
  const Runs& runs = evidence.invocations();
  const bool sent_before = std::any_of(runs.begin(), restart, [&](const InvocationResult& earlier) {
    return earlier.operation == killed.operation && !evidence.entries_of(earlier).empty();
  });
  const auto entries = evidence.entries_of(*restart);
  if (!sent_before || entries.empty() || entries.front().kind != provider::RequestKind::create)
    return;
  violations.add("after the restart, the first request for " + killed.operation + " was " +
                     entries.front().method + " " + entries.front().path + " (" +
                     seq_text(entries.front()) + "); " + what_it_got(entries.front()) +
                     ". A killed client cannot know what its last request did: under "
                     "lookup-first it asks by key first (if it re-sends the same key by "
                     "design, declare --client-policy on-ambiguous=same-key-retry)",
                 {entries.front().seq});
}

}  // namespace

Verdict crash_recovery(const Evidence& evidence) {
  Violations violations;
  bool any_kill = false;
  const Runs& invocations = evidence.invocations();
  for (auto killed = invocations.begin(); killed != invocations.end(); ++killed) {
    if (!killed->killed) continue;
    any_kill = true;
    // The restart is the next run asked for the same operation with the same payload: one
    // asked for another payload is a new request, not a resume of the killed one's intent.
    const auto restart =
        std::find_if(killed + 1, invocations.end(), [&](const InvocationResult& later) {
          return later.operation == killed->operation && later.payload == killed->payload;
        });
    if (restart == invocations.end()) continue;
    second_jobs(evidence, *killed, *restart, violations);
    lookup_first(evidence, *killed, restart, violations);
  }
  if (!any_kill) return not_applicable("no client was killed");
  return std::move(violations)
      .verdict("the restart created no second job" +
               std::string(evidence.policy().on_ambiguous == OnAmbiguous::lookup_first
                               ? " and asked by key first"
                               : ""));
}

}  // namespace retryproof::scenarios::checkers
