// truthful-outcome (harm): `succeeded` names a job the provider holds for the operation,
// created from a body this invocation sent, or an earlier one asked for the same payload
// (the old job is no answer to a changed request); `failed` is never reported for a job
// created from such a body; `unknown` is allowed, and counted. Bodies, not the scenario's
// payload text: an SDK sends its own wire body (Evidence::bodies_of).
#include <algorithm>
#include <set>

#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

namespace {

// Whether `created` was made from one of these bodies.
bool from_bodies(const JournalEntry& created, const std::set<std::string>& bodies) {
  return created.fingerprint && bodies.contains(*created.fingerprint);
}

// A reported success names a job the provider holds for the operation, made from a body
// this invocation was asked to send.
void check_succeeded(const Evidence& evidence, const InvocationResult& invocation,
                     const std::set<std::string>& bodies, Violations& violations) {
  const OutcomeLine& reported = *invocation.outcome;
  const auto jobs = evidence.jobs_of_operation(invocation.operation);
  const auto job = std::find_if(jobs.begin(), jobs.end(), [&](const JobRecord* candidate) {
    return candidate->id == reported.job_id;
  });
  if (job == jobs.end()) {
    violations.add(label(invocation) + " reported succeeded with " + reported.job_id +
                       ", which the provider does not hold for this operation",
                   {});
    return;
  }
  const JournalEntry* created = evidence.creation_of(reported.job_id);
  if (created != nullptr && !from_bodies(*created, bodies)) {
    violations.add(label(invocation) + " reported succeeded with " + reported.job_id +
                       ", which was created (" + seq_text(*created) +
                       ") from another request than the one this invocation was asked to "
                       "send; a changed request under the same key is refused, not done",
                   {created->seq});
  }
}

// A reported failure holds no job created from this invocation's request, by a request that
// arrived before the invocation ended, or later on its own connection (a later run's job is
// not its).
void check_failed(const Evidence& evidence, const InvocationResult& invocation,
                  const std::set<std::string>& bodies, Violations& violations) {
  for (const JobRecord* job : evidence.jobs_of_operation(invocation.operation)) {
    const JournalEntry* created = evidence.creation_of(job->id);
    if (created == nullptr || !from_bodies(*created, bodies) ||
        (created->seq > invocation.last_seq &&
         evidence.invocation_of(created->seq) != invocation.index)) {
      continue;
    }
    violations.add(label(invocation) + " reported failed, but the provider holds " + job->id +
                       " for " + subject_text(evidence, *created) + " (created at " +
                       seq_text(*created) +
                       "); when a request may have committed, report unknown or look the key up",
                   {created->seq});
  }
}

}  // namespace

Verdict truthful_outcome(const Evidence& evidence) {
  Violations violations;
  int unknown = 0;
  for (const auto& invocation : evidence.invocations()) {
    if (!invocation.outcome) continue;  // killed, or a client error
    const std::set<std::string> bodies = evidence.bodies_of(invocation);
    switch (invocation.outcome->outcome) {
      case Reported::unknown:
        ++unknown;
        break;
      case Reported::succeeded:
        check_succeeded(evidence, invocation, bodies, violations);
        break;
      case Reported::failed:
        check_failed(evidence, invocation, bodies, violations);
        break;
    }
  }
  return std::move(violations)
      .verdict(unknown == 0 ? "every reported outcome matches the provider's records"
                            : "every reported outcome matches the provider's records; " +
                                  std::to_string(unknown) + " unknown (allowed: failed closed)");
}

}  // namespace retryproof::scenarios::checkers
