#include "scenarios/judge/traffic.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "common/listing.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/evidence/operator_numbers.hpp"
#include "scenarios/evidence/verdicts.hpp"
#include "scenarios/judge/operations.hpp"
#include "scenarios/model/expectations.hpp"

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;
using provider::RequestKind;

std::vector<JournalEntry> in_seq_order(const std::vector<JournalEntry>& journal) {
  std::map<std::uint64_t, std::size_t> index_of_seq;
  for (std::size_t i = 0; i < journal.size(); ++i) {
    const auto [first, added] = index_of_seq.emplace(journal[i].seq, i);
    if (!added) {
      throw std::invalid_argument("entries[" + std::to_string(first->second) + "] and entries[" +
                                  std::to_string(i) + "] both have seq " +
                                  std::to_string(journal[i].seq) +
                                  ": a journal numbers its requests once each");
    }
  }
  std::vector<JournalEntry> sorted = journal;
  std::sort(sorted.begin(), sorted.end(),
            [](const JournalEntry& a, const JournalEntry& b) { return a.seq < b.seq; });
  return sorted;
}

// The operation's requests as one run of the client: no outcome line, and no payload given
// (what it sent is compared with what it sent).
InvocationResult synthetic_invocation(int index, const OperationTraffic& operation) {
  InvocationResult invocation{.index = index, .operation = operation.name};
  const auto& entries = operation.entries;
  invocation.first_seq = entries.front().seq;
  invocation.last_seq = entries.back().seq;
  invocation.started_at = entries.front().at;
  for (const JournalEntry& entry : entries)
    invocation.ended_at = std::max(invocation.ended_at, entry.answered_at.value_or(entry.at));
  return invocation;
}

std::string seq_listing(const std::vector<std::uint64_t>& seqs) {
  constexpr std::size_t kShown = 10;
  std::vector<std::string> numbers;
  for (const std::uint64_t seq : seqs)
    numbers.push_back(std::to_string(seq));
  return seqs.empty() ? std::string() : "seq " + first_of(numbers, kShown);
}

// What was judged, from what, and what could not be, for the report's description.
std::string describe(const Attribution& attribution, std::size_t requests,
                     const std::string& field) {
  const std::size_t count = attribution.operations.size();
  std::string text = "traffic alone: " + std::to_string(requests) + " requests, " +
                     std::to_string(count) + (count == 1 ? " operation" : " operations");
  if (attribution.by_key) {
    text +=
        " by idempotency key (no create recorded an operation field, so a service that "
        "changes keys goes unseen: start the provider with --operation-field NAME)";
  } else {
    text += " by " + (field.empty() ? std::string("the recorded operation field") : field);
  }
  if (!attribution.unattributed.empty()) {
    text += "; " + std::to_string(attribution.unattributed.size()) +
            " requests belong to no operation (no key, or a key no create sent): " +
            seq_listing(attribution.unattributed);
  }
  std::string skipped;
  for (const VerdictRow& row : verdict_table()) {
    if (row.needs == Needs::outcomes)
      skipped += (skipped.empty() ? "" : ", ") + std::string(row.id);
  }
  return text + ". Not judged without a driven run's outcome lines: " + skipped;
}

}  // namespace

std::vector<provider::JobRecord> jobs_of_journal(const std::vector<JournalEntry>& journal) {
  std::vector<provider::JobRecord> jobs;
  std::set<std::string> seen;
  for (const JournalEntry& entry : journal) {
    if (entry.outcome != provider::Outcome::new_operation || !entry.job_id) continue;
    if (!seen.insert(*entry.job_id).second) continue;
    jobs.push_back({*entry.job_id, entry.key.value_or(""), {{"id", *entry.job_id}}});
  }
  return jobs;
}

ScenarioResult judge_traffic(const std::vector<JournalEntry>& journal,
                             const TrafficOptions& options) {
  ScenarioResult result{.name = options.name, .file = options.file, .client = "traffic"};
  result.journal = in_seq_order(journal);
  result.jobs = jobs_of_journal(result.journal);

  const std::string label = options.operation_field.empty() ? "operation" : options.operation_field;
  const Attribution attribution = attribute(result.journal, label);
  const bool any_create = std::any_of(
      result.journal.begin(), result.journal.end(),
      [](const JournalEntry& entry) { return entry.kind == RequestKind::create && entry.key; });
  if (options.require_operations && attribution.by_key && any_create) {
    throw std::invalid_argument(
        "no create in the journal recorded an operation, so it cannot be grouped by " +
        options.operation_field + ": start the provider with --operation-field " +
        options.operation_field + " (it then records each create's " + options.operation_field +
        "), or judge without --operation-field to group by idempotency key");
  }
  result.description = describe(attribution, result.journal.size(), options.operation_field);

  Scenario scenario{.file = options.file, .name = options.name, .api = options.api};
  std::vector<std::vector<JournalEntry>> entries_by_invocation;
  for (const OperationTraffic& operation : attribution.operations) {
    scenario.operations.push_back({operation.name, nlohmann::json::object()});
    result.invocations.push_back(
        synthetic_invocation(static_cast<int>(result.invocations.size()), operation));
    entries_by_invocation.push_back(operation.entries);
  }
  result.policy = judged_policy(scenario, options.declared);
  result.policy.from_scenario = false;  // a default Scenario: there is none behind traffic
  result.policy.declare_with = options.declare_with;
  const Evidence evidence(scenario, result.policy, result.invocations, result.journal, result.jobs,
                          entries_by_invocation);
  result.verdicts = judge(evidence, Needs::traffic);
  account_for_gaps(result.verdicts, options.gaps, options.origins);
  // Traffic has no outcome lines: an operation succeeded when the provider made its job.
  result.numbers = operator_numbers(evidence, SuccessBy::job);
  if (result.journal.empty())
    result.inconclusive.push_back({"the journal holds no entries: there is nothing to judge", ""});
  for (const JournalGap& gap : options.gaps)
    result.inconclusive.push_back({gap_text(gap, !options.origins.empty()), ""});
  settle_expectations(scenario, result);
  return result;
}

}  // namespace retryproof::scenarios
