#include "scenarios/evidence/evidence.hpp"

#include <algorithm>

#include "common/fingerprint.hpp"
#include "common/invariant.hpp"

namespace retryproof::scenarios {

using provider::Outcome;
using provider::RequestKind;

Evidence::Evidence(const Scenario& scenario, const JudgedPolicy& policy,
                   const std::vector<InvocationResult>& invocations,
                   const std::vector<JournalEntry>& journal, const std::vector<JobRecord>& jobs,
                   const std::vector<std::vector<JournalEntry>>& entries_by_invocation)
    : Evidence(scenario, policy, invocations, journal, jobs, &entries_by_invocation) {
  check_invariant(entries_by_invocation.size() == invocations.size(),
                  "every invocation judged from traffic has its list of entries");
}

Evidence::Evidence(const Scenario& scenario, const JudgedPolicy& policy,
                   const std::vector<InvocationResult>& invocations,
                   const std::vector<JournalEntry>& journal, const std::vector<JobRecord>& jobs)
    : Evidence(scenario, policy, invocations, journal, jobs, nullptr) {}

Evidence::Evidence(const Scenario& scenario, const JudgedPolicy& policy,
                   const std::vector<InvocationResult>& invocations,
                   const std::vector<JournalEntry>& journal, const std::vector<JobRecord>& jobs,
                   const std::vector<std::vector<JournalEntry>>* entries_by_invocation)
    : scenario_(scenario),
      policy_(policy),
      invocations_(invocations),
      journal_(journal),
      jobs_(jobs),
      entries_by_invocation_(entries_by_invocation) {
  // entries_of() searches by seq.
  check_invariant(
      std::is_sorted(journal_.begin(), journal_.end(),
                     [](const JournalEntry& a, const JournalEntry& b) { return a.seq < b.seq; }),
      "the journal judged is in seq order");
  for (const auto& invocation : invocations_) {
    for (const JournalEntry& entry : entries_of(invocation))
      invocation_by_seq_.emplace(entry.seq, invocation.index);
    for (const JournalEntry* create : creates_of(invocation)) {
      if (create->key) operation_by_key_.emplace(*create->key, invocation.operation);
      if (create->outcome == Outcome::new_operation && create->job_id)
        operation_by_job_.emplace(*create->job_id, invocation.operation);
    }
  }
  // Indexes for the questions every checker asks per operation and per job: a fleet of a
  // thousand would otherwise scan every job for each operation.
  for (const JournalEntry& entry : journal_) {
    if (entry.outcome == Outcome::new_operation && entry.job_id)
      creation_by_job_.emplace(*entry.job_id, &entry);
  }
  for (const JobRecord& job : jobs_) {
    const auto made_by = operation_by_job_.find(job.id);
    const std::string* owner =
        made_by != operation_by_job_.end() ? &made_by->second : operation_of_key(job.key);
    if (owner != nullptr) jobs_by_operation_[*owner].push_back(&job);
  }
}

std::optional<int> Evidence::invocation_of(std::uint64_t seq) const {
  const auto found = invocation_by_seq_.find(seq);
  if (found == invocation_by_seq_.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string> Evidence::operation_ids() const {
  std::vector<std::string> ids;
  for (const auto& operation : scenario_.operations)
    ids.push_back(operation.id);
  return ids;
}

std::span<const JournalEntry> Evidence::entries_of(const InvocationResult& invocation) const {
  if (entries_by_invocation_ != nullptr) {
    return (*entries_by_invocation_)[static_cast<std::size_t>(invocation.index)];
  }
  if (invocation.last_seq < invocation.first_seq) return {};
  // The journal is in seq order, but need not start at 1 (a page of a longer one).
  const auto by_seq = [](const JournalEntry& entry, std::uint64_t seq) { return entry.seq < seq; };
  const auto first =
      std::lower_bound(journal_.begin(), journal_.end(), invocation.first_seq, by_seq);
  const auto last = std::lower_bound(first, journal_.end(), invocation.last_seq + 1, by_seq);
  return {first, last};
}

std::vector<const JournalEntry*> Evidence::creates_of(const InvocationResult& invocation) const {
  std::vector<const JournalEntry*> creates;
  for (const JournalEntry& entry : entries_of(invocation)) {
    if (entry.kind == RequestKind::create) creates.push_back(&entry);
  }
  return creates;
}

std::vector<const JournalEntry*> Evidence::creates_of_operation(
    const std::string& operation) const {
  std::vector<const JournalEntry*> creates;
  for (const auto& invocation : invocations_) {
    if (invocation.operation != operation) continue;
    for (const JournalEntry* create : creates_of(invocation))
      creates.push_back(create);
  }
  return creates;
}

const JournalEntry* Evidence::creation_of(const std::string& job_id) const {
  const auto found = creation_by_job_.find(job_id);
  return found == creation_by_job_.end() ? nullptr : found->second;
}

const std::string* Evidence::operation_of_key(const std::string& key) const {
  const auto found = operation_by_key_.find(key);
  return found == operation_by_key_.end() ? nullptr : &found->second;
}

std::vector<const JobRecord*> Evidence::jobs_of_operation(const std::string& operation) const {
  const auto found = jobs_by_operation_.find(operation);
  return found == jobs_by_operation_.end() ? std::vector<const JobRecord*>{} : found->second;
}

std::string Evidence::fingerprint_of(const nlohmann::json& payload) const {
  return fingerprint(scenario_.api.canonical_payload(payload));
}

std::set<std::string> Evidence::bodies_of(const InvocationResult& invocation) const {
  std::set<std::string> bodies;
  for (const auto& other : invocations_) {
    if (other.index > invocation.index) break;
    const bool same_request =
        other.index == invocation.index ||
        (other.operation == invocation.operation && other.payload == invocation.payload);
    if (!same_request) continue;
    for (const JournalEntry* create : creates_of(other)) {
      if (create->fingerprint) bodies.insert(*create->fingerprint);
    }
  }
  if (policy_.payload_verbatim && !invocation.payload.is_null())
    bodies.insert(fingerprint_of(invocation.payload));
  return bodies;
}

std::optional<std::string> subject_of(const JournalEntry& entry) {
  return entry.key ? entry.key : entry.operation;
}

std::string request_text(const JournalEntry& entry) {
  return entry.method + " " + entry.path;
}

std::string seq_text(const JournalEntry& entry) {
  return "seq " + std::to_string(entry.seq);
}

}  // namespace retryproof::scenarios
