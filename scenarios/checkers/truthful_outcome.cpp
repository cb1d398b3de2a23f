// truthful-outcome (harm): `succeeded` names a job the provider holds for the operation,
// created from this invocation's payload (the old job is no answer to a changed request);
// `failed` is never reported for a job created with the invocation's payload; `unknown` is
// allowed, and counted.
#include <algorithm>

#include "scenarios/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict truthful_outcome(const Evidence& evidence) {
  Violations violations;
  int unknown = 0;
  for (const auto& invocation : evidence.invocations()) {
    if (!invocation.outcome) continue;  // killed, or a client error
    const OutcomeLine& reported = *invocation.outcome;
    const std::string payload = evidence.fingerprint_of(invocation.payload);
    switch (reported.outcome) {
      case Reported::unknown:
        ++unknown;
        break;
      case Reported::succeeded: {
        const auto jobs = evidence.jobs_of_operation(invocation.operation);
        const auto job = std::find_if(jobs.begin(), jobs.end(), [&](const JobRecord* candidate) {
          return candidate->id == reported.job_id;
        });
        if (job == jobs.end()) {
          violations.add(label(invocation) + " reported succeeded with " + reported.job_id +
                             ", which the provider does not hold for this operation",
                         {});
          break;
        }
        const JournalEntry* created = evidence.creation_of(reported.job_id);
        if (created != nullptr && created->fingerprint != payload) {
          violations.add(label(invocation) + " reported succeeded with " + reported.job_id +
                             ", which was created (" + seq_text(*created) +
                             ") from another payload than the one this invocation was asked to "
                             "send; a changed request under the same key is refused, not done",
                         {created->seq});
        }
        break;
      }
      case Reported::failed: {
        // A job created with exactly the payload this invocation was asked to send, by a
        // request that arrived before the invocation ended (a later run's job is not its).
        for (const JobRecord* job : evidence.jobs_of_operation(invocation.operation)) {
          const JournalEntry* created = evidence.creation_of(job->id);
          if (created == nullptr || created->fingerprint != payload ||
              created->seq > invocation.last_seq) {
            continue;
          }
          violations.add(label(invocation) + " reported failed, but the provider holds " + job->id +
                             " for key " + job->key + " (created at " + seq_text(*created) +
                             "); when a request may have committed, report "
                             "unknown or look the key up",
                         {created->seq});
        }
        break;
      }
    }
  }
  return std::move(violations)
      .verdict(unknown == 0 ? "every reported outcome matches the provider's records"
                            : "every reported outcome matches the provider's records; " +
                                  std::to_string(unknown) + " unknown (allowed: failed closed)");
}

}  // namespace retryproof::scenarios::checkers
