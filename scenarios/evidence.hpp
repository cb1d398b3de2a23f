// A read-only view of what a run produced, with the questions every checker asks of it:
// which journal entries an invocation caused, the creates of an operation, the request
// that created a job, which operation a key belongs to. Checkers read facts from here —
// what was sent, what came back, when — never fault names.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "provider/job_record.hpp"
#include "provider/journal.hpp"
#include "scenarios/run_result.hpp"
#include "scenarios/scenario.hpp"

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

  // The scenario's operation ids, in its order.
  std::vector<std::string> operation_ids() const;

  // The entries an invocation caused, in order.
  std::span<const JournalEntry> entries_of(const InvocationResult& invocation) const;
  // Its requests to the create route, in order.
  std::vector<const JournalEntry*> creates_of(const InvocationResult& invocation) const;
  // Every create of an operation, across its invocations, in order.
  std::vector<const JournalEntry*> creates_of_operation(const std::string& operation) const;

  // The entry that created a job (a new operation that returned its id), or null.
  const JournalEntry* creation_of(const std::string& job_id) const;
  // The operation whose invocation first sent this key in a create, or null.
  const std::string* operation_of_key(const std::string& key) const;
  // The jobs whose key belongs to the operation, in creation order.
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
  std::map<std::string, std::string> operation_by_key_;
};

// "seq 4", for messages.
std::string seq_text(const JournalEntry& entry);
// "POST /jobs", for messages: the request's method and path.
std::string request_text(const JournalEntry& entry);

}  // namespace retryproof::scenarios
