#include "scenarios/reports/view.hpp"

#include <algorithm>
#include <cctype>

#include "common/json_text.hpp"
#include "common/utf8.hpp"
#include "scenarios/driver/scale_guard.hpp"
#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios::reports {

Reading read_verdict(const ScenarioResult& result, const Verdict& verdict) {
  const auto& expected = result.expected_violations;
  const bool expected_to_fail =
      std::find(expected.begin(), expected.end(), verdict.id) != expected.end();
  switch (verdict.status) {
    case VerdictStatus::inconclusive:
      return Reading::inconclusive;
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

std::size_t count_inconclusive(const RunSummary& run) {
  return static_cast<std::size_t>(std::count_if(
      run.results.begin(), run.results.end(),
      [](const ScenarioResult& r) { return r.status() == ScenarioStatus::inconclusive; }));
}

std::string scenario_mark(const ScenarioResult& result) {
  switch (result.status()) {
    case ScenarioStatus::met:
      return "PASS";
    case ScenarioStatus::inconclusive:
      return "INCONCLUSIVE";
    case ScenarioStatus::failed:
      break;
  }
  return "FAIL (" + to_string(*worst_miss(result)) + ")";
}

std::vector<std::string> inconclusive_texts(const ScenarioResult& result) {
  std::vector<std::string> texts;
  for (const Inconclusive& reason : result.inconclusive)
    texts.push_back(reason.text);
  return texts;
}

std::optional<Severity> worst_miss(const ScenarioResult& result) {
  std::optional<Severity> worst;
  for (const Unmet& unmet : result.unmet)
    worst = std::max(worst.value_or(unmet.severity), unmet.severity);
  return worst;
}

std::string summary_line(const RunSummary& run) {
  const std::size_t met = count_met(run);
  const std::size_t harm = static_cast<std::size_t>(std::count_if(
      run.results.begin(), run.results.end(),
      [](const ScenarioResult& result) { return worst_miss(result) == Severity::harm; }));
  const std::size_t undecided = count_inconclusive(run);
  const std::size_t missed = run.results.size() - met - undecided;
  std::string line = count_of(run.results.size(), "scenario") + ": " + std::to_string(met) +
                     " met " + (met == 1 ? "its" : "their") + " expectations, " +
                     std::to_string(missed) + " did not";
  if (missed > 0) {
    line += " (" + std::to_string(harm) + " with harm, " + std::to_string(missed - harm) +
            " policy only)";
  }
  if (undecided > 0) line += ", " + std::to_string(undecided) + " inconclusive";
  return line;
}

std::string unmet_text(const Unmet& unmet) {
  return "[" + to_string(unmet.severity) + "] " + unmet.text;
}

std::vector<std::string> unmet_texts(const ScenarioResult& result) {
  std::vector<std::string> texts;
  for (const Unmet& unmet : result.unmet)
    texts.push_back(unmet_text(unmet));
  return texts;
}

std::string policy_text(const JudgedPolicy& policy) {
  std::string text = "judged by attempts " + std::to_string(policy.attempts) + ", min-backoff " +
                     std::to_string(policy.min_backoff.count()) + " ms, timeout " +
                     std::to_string(policy.timeout.count()) + " ms, " +
                     to_string(policy.on_ambiguous);
  if (policy.retry_budget) {
    text += ", retry budget " + std::to_string(std::lround(*policy.retry_budget * 100)) + "%";
  }
  if (policy.breaker) text += ", breaker " + policy.breaker->describe();
  return text;
}

std::string replay_command(const RunSummary& run) {
  if (!run.replay.empty()) return run.replay;
  std::string command = "retryproof run";
  for (const auto& path : run.paths)
    command += " " + shell_quote(path);
  command += " --seed " + std::to_string(run.seed) + " --client " + shell_quote(run.client);
  if (!run.api.empty()) command += " --api " + shell_quote(run.api);
  if (!run.client_policy.empty()) command += " --client-policy " + shell_quote(run.client_policy);
  // The scale asked for: the replay probes the client again and settles the same way.
  if (run.time_scale.scaled()) command += " --time-scale " + std::to_string(run.time_scale.asked);
  if (run.tls) command += " --tls";
  if (run.simulate) command += " --simulate";
  if (run.sessions) command += " --sessions";
  return command;
}

std::string replay_command(const RunSummary& run, const ScenarioResult& result) {
  if (!run.replay.empty()) return run.replay;
  return replay_command(run) + " --filter " + shell_quote(result.name);
}

std::string run_subject(const RunSummary& run) {
  if (!run.subject.empty()) return run.subject + time_scale_subject(run.time_scale);
  return "run: seed " + std::to_string(run.seed) + ", client " + run.client +
         time_scale_subject(run.time_scale);
}

std::string time_scale_subject(const RunTimeScale& scale) {
  if (!scale.scaled()) return "";
  const std::string asked = ", time scale " + std::to_string(scale.asked);
  if (scale.used == scale.asked) return asked;
  return asked + " asked, judged at " +
         (scale.used == 1 ? std::string("real time") : "time scale " + std::to_string(scale.used));
}

std::vector<std::string> ran_below_scale(const RunSummary& run) {
  std::vector<std::string> names;
  for (const auto& result : run.results) {
    if (!result.scale_why.empty()) names.push_back(result.name);
  }
  return names;
}

std::vector<std::string> time_scale_notes(const RunSummary& run) {
  std::vector<std::string> notes;
  if (!run.time_scale.scaled()) return notes;
  if (!run.time_scale.probe.empty()) notes.push_back(run.time_scale.probe);
  if (!run.time_scale.overhead.empty()) notes.push_back(run.time_scale.overhead);
  if (std::string lowered = scale_summary(run.results, TimeScale(run.time_scale.used));
      !lowered.empty()) {
    notes.push_back(std::move(lowered));
  }
  return notes;
}

std::string scale_note(const ScenarioResult& result) {
  if (result.scale_why.empty()) return "";
  return "ran at scale " + std::to_string(result.scale) + ": " + result.scale_why;
}

std::string outcome_text(const InvocationResult& invocation) {
  if (invocation.killed) {
    if (invocation.exit.empty()) return "killed";
    if (invocation.exit.starts_with("killed")) return valid_utf8(invocation.exit);
    return "killed (" + valid_utf8(invocation.exit) + ")";
  }
  if (!invocation.client_error.empty()) {
    std::string text = "client error: " + valid_utf8(invocation.client_error);
    // The error usually says how the client ended already ("... (exit code 1)").
    if (!invocation.exit.empty() &&
        invocation.client_error.find(invocation.exit) == std::string::npos)
      text += " (" + valid_utf8(invocation.exit) + ")";
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

namespace {

std::string window_range(const InvocationResult& invocation) {
  if (invocation.last_seq < invocation.first_seq) return "no requests";
  if (invocation.last_seq == invocation.first_seq)
    return "seq " + std::to_string(invocation.first_seq);
  return "seq " + std::to_string(invocation.first_seq) + "-" + std::to_string(invocation.last_seq);
}

}  // namespace

std::string seq_range(const InvocationResult& invocation) {
  std::string text = window_range(invocation);
  if (invocation.late_seqs.empty()) return text;
  // What its connections carried after it was reaped is its, wherever it fell.
  text += invocation.late_seqs.size() == 1 ? ", and seq " : ", and seqs ";
  for (std::size_t i = 0; i < invocation.late_seqs.size(); ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(invocation.late_seqs[i]);
  return text + " read after it ended";
}

std::vector<std::uint64_t> seqs_not_mentioned(std::string_view text,
                                              const std::vector<std::uint64_t>& seqs) {
  std::vector<std::uint64_t> missing;
  for (const auto seq : seqs) {
    const std::string mention = "seq " + std::to_string(seq);
    bool mentioned = false;
    for (auto at = text.find(mention); at != std::string_view::npos && !mentioned;
         at = text.find(mention, at + 1)) {
      const auto after = at + mention.size();
      mentioned =
          after == text.size() || std::isdigit(static_cast<unsigned char>(text[after])) == 0;
    }
    if (!mentioned) missing.push_back(seq);
  }
  return missing;
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
                     "ms " + valid_utf8(entry.method) + " " + escape_text(entry.path);
  if (entry.key) line += " key=" + escape_text(*entry.key);
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
