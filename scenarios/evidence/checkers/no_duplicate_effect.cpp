// no-duplicate-effect: at most one job per logical operation.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {

Verdict no_duplicate_effect(const Evidence& evidence) {
  Violations violations;
  for (const auto& operation : evidence.operation_ids()) {
    const auto jobs = evidence.jobs_of_operation(operation);
    if (jobs.size() <= 1) continue;
    std::string listing;
    std::vector<std::uint64_t> seqs;
    for (const JobRecord* job : jobs) {
      const JournalEntry* created = evidence.creation_of(job->id);
      // Without idempotency keys, a job is held under its business field's value.
      const std::string held_by =
          evidence.keyless()
              ? evidence.scenario().api.operation_field.value_or("operation") + "=" + job->key
              : "key " + job->key;
      listing += (listing.empty() ? "" : ", ") + job->id + " (" + held_by +
                 (created ? ", " + seq_text(*created) : "") + ")";
      if (created) seqs.push_back(created->seq);
    }
    violations.add("operation " + operation + " has " + std::to_string(jobs.size()) +
                       " jobs: " + listing + "; one logical operation must create one job",
                   seqs);
  }
  return std::move(violations).verdict("every operation has at most one job");
}

}  // namespace retryproof::scenarios::checkers
