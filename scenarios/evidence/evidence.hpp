// A read-only view of what a run produced, with the questions every checker asks of it:
// which journal entries an invocation caused, the creates of an operation, the request
// that created a job, which operation a key belongs to. Checkers read facts from here —
// what was sent, what came back, when — never fault names.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "provider/job_record.hpp"
#include "provider/journal.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

using provider::JobRecord;
using provider::JournalEntry;

class Evidence {
 public:
  // The view keeps references: every argument must outlive it.
  Evidence(const Scenario& scenario, const JudgedPolicy& policy,
           const std::vector<InvocationResult>& invocations,
           const std::vector<JournalEntry>& journal, const std::vector<JobRecord>& jobs);
  // Traffic judged without a run (scenarios/judge/): each invocation's entries given outright,
  // by its index, because concurrent operations' requests interleave in the journal instead
  // of filling windows of it. Each list is in seq order, and its entries are in `journal`.
  Evidence(const Scenario& scenario, const JudgedPolicy& policy,
           const std::vector<InvocationResult>& invocations,
           const std::vector<JournalEntry>& journal, const std::vector<JobRecord>& jobs,
           const std::vector<std::vector<JournalEntry>>& entries_by_invocation);

  const Scenario& scenario() const { return scenario_; }
  // What the client is judged by: its declaration over the scenario's settings.
  const JudgedPolicy& policy() const { return policy_; }
  const std::vector<InvocationResult>& invocations() const { return invocations_; }
  const std::vector<JournalEntry>& journal() const { return journal_; }
  const std::vector<JobRecord>& jobs() const { return jobs_; }

  // The fingerprint the provider journals for this payload, under the scenario's API shape
  // (a form-encoded API fingerprints every leaf as a string).
  std::string fingerprint_of(const nlohmann::json& payload) const;
  // Whether the API has no idempotency key: creates are tied to their operation by the
  // business field alone, and a create cannot be retried safely.
  bool keyless() const { return !scenario_.api.key.exists(); }

  // The bodies (fingerprints) that count as this invocation's request: those its creates
  // carried, those of earlier invocations of the operation asked for the same payload, and,
  // for a client that declares it sends the payload verbatim, the payload's own. A client's
  // SDK may map the payload to any wire body; what it sent is compared with what it sent.
  std::set<std::string> bodies_of(const InvocationResult& invocation) const;

  // The scenario's operation ids, in its order.
  std::vector<std::string> operation_ids() const;

  // The entries an invocation caused, in order.
  std::span<const JournalEntry> entries_of(const InvocationResult& invocation) const;
  // The index of the invocation an entry is charged to (its connection's, which may be an
  // earlier one than its window's: scenarios/driver/attribution.hpp), or nothing.
  std::optional<int> invocation_of(std::uint64_t seq) const;
  // Its requests to the create route, in order.
  std::vector<const JournalEntry*> creates_of(const InvocationResult& invocation) const;
  // Every create of an operation, across its invocations, in order.
  std::vector<const JournalEntry*> creates_of_operation(const std::string& operation) const;

  // The entry that created a job (a new operation that returned its id), or null.
  const JournalEntry* creation_of(const std::string& job_id) const;
  // The operation whose invocation first sent this key in a create, or null.
  const std::string* operation_of_key(const std::string& key) const;
  // The jobs of the operation, in creation order: those a create of its invocations made,
  // and those whose key it sent (a job whose creation the journal no longer holds).
  std::vector<const JobRecord*> jobs_of_operation(const std::string& operation) const;

 private:
  Evidence(const Scenario& scenario, const JudgedPolicy& policy,
           const std::vector<InvocationResult>& invocations,
           const std::vector<JournalEntry>& journal, const std::vector<JobRecord>& jobs,
           const std::vector<std::vector<JournalEntry>>* entries_by_invocation);

  const Scenario& scenario_;
  const JudgedPolicy& policy_;
  const std::vector<InvocationResult>& invocations_;
  const std::vector<JournalEntry>& journal_;
  const std::vector<JobRecord>& jobs_;
  const std::vector<std::vector<JournalEntry>>* entries_by_invocation_ = nullptr;
  std::map<std::uint64_t, int> invocation_by_seq_;
  std::map<std::string, std::string> operation_by_key_;
  std::map<std::string, std::string> operation_by_job_;         // by the create that made the job
  std::map<std::string, const JournalEntry*> creation_by_job_;  // its first new-operation entry
  std::map<std::string, std::vector<const JobRecord*>> jobs_by_operation_;  // in creation order
};

// What a request is about: its idempotency key, or under an API without one, the business
// field's value it carried (a create) or asked for (a lookup).
std::optional<std::string> subject_of(const JournalEntry& entry);

// "seq 4", for messages.
std::string seq_text(const JournalEntry& entry);
// "POST /jobs", for messages: the request's method and path.
std::string request_text(const JournalEntry& entry);

}  // namespace retryproof::scenarios
