#include "scenarios/reports/view.hpp"

#include <algorithm>

#include "common/json_text.hpp"
#include "common/utf8.hpp"
#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios::reports {

Reading read_verdict(const ScenarioResult& result, const Verdict& verdict) {
  const auto& expected = result.expected_violations;
  const bool expected_to_fail =
      std::find(expected.begin(), expected.end(), verdict.id) != expected.end();
  switch (verdict.status) {
    case VerdictStatus::fail:
      return expected_to_fail ? Reading::expected_failure : Reading::failed;
    case VerdictStatus::pass:
      return expected_to_fail ? Reading::missed_violation : Reading::passed;
    case VerdictStatus::not_applicable:
      return expected_to_fail ? Reading::missed_violation : Reading::not_applicable;
  }
  return Reading::not_applicable;
}

std::size_t count_met(const RunSummary& run) {
  return static_cast<std::size_t>(std::count_if(run.results.begin(), run.results.end(),
                                                [](const ScenarioResult& r) { return r.met(); }));
}

std::string summary_line(const RunSummary& run) {
  const std::size_t met = count_met(run);
  return std::to_string(run.results.size()) + " scenarios: " + std::to_string(met) +
         " met their expectations, " + std::to_string(run.results.size() - met) + " did not";
}

std::string replay_command(const RunSummary& run) {
  return "retryproof run --seed " + std::to_string(run.seed) + " --client " +
         shell_quote(run.client);
}

std::string outcome_text(const InvocationResult& invocation) {
  if (invocation.killed) {
    if (invocation.exit.empty()) return "killed";
    if (invocation.exit.starts_with("killed")) return valid_utf8(invocation.exit);
    return "killed (" + valid_utf8(invocation.exit) + ")";
  }
  if (!invocation.client_error.empty()) {
    std::string text = "client error: " + valid_utf8(invocation.client_error);
    if (!invocation.exit.empty()) text += " (" + valid_utf8(invocation.exit) + ")";
    return text;
  }
  if (!invocation.outcome) return "no outcome";
  std::string text = to_string(invocation.outcome->outcome);
  for (const auto& [key, value] : invocation.outcome->line.items()) {
    if (key == "outcome") continue;
    text +=
        " " + valid_utf8(key) + "=" +
        (value.is_string() ? valid_utf8(value.get_ref<const std::string&>()) : compact_json(value));
  }
  return text;
}

std::string seq_range(const InvocationResult& invocation) {
  if (invocation.last_seq < invocation.first_seq) return "no requests";
  if (invocation.last_seq == invocation.first_seq)
    return "seq " + std::to_string(invocation.first_seq);
  return "seq " + std::to_string(invocation.first_seq) + "-" + std::to_string(invocation.last_seq);
}

std::string seq_list(const std::vector<std::uint64_t>& seqs) {
  std::vector<std::string> parts;
  for (const auto seq : seqs)
    parts.push_back(std::to_string(seq));
  return parts.empty() ? "no journal entries cited" : "seq " + join(parts, ", ");
}

std::optional<std::string> applied_fault(const JournalEntry& entry) {
  if (!entry.fault || entry.fault->kind == provider::FaultKind::none) return std::nullopt;
  return provider::to_string(*entry.fault);
}

std::string response_text(const JournalEntry& entry) {
  if (!entry.status) return "no response";
  const std::string status = std::to_string(*entry.status);
  return entry.delivered() ? status : status + " (not delivered)";
}

std::string timeline_line(const JournalEntry& entry) {
  std::string line = "#" + std::to_string(entry.seq) + " +" + std::to_string(entry.at.count()) +
                     "ms " + valid_utf8(entry.method) + " " + valid_utf8(entry.path);
  if (entry.key) line += " key=" + valid_utf8(*entry.key);
  line += " " + provider::to_string(entry.outcome);
  if (const auto fault = applied_fault(entry)) line += " fault=" + *fault;
  line += " -> " + response_text(entry);
  if (entry.job_id) line += " job=" + valid_utf8(*entry.job_id);
  return line;
}

std::set<std::uint64_t> evidence_of_failures(const ScenarioResult& result) {
  std::set<std::uint64_t> seqs;
  for (const auto& verdict : result.verdicts) {
    if (verdict.status == VerdictStatus::fail)
      seqs.insert(verdict.evidence.begin(), verdict.evidence.end());
  }
  return seqs;
}

}  // namespace retryproof::scenarios::reports
