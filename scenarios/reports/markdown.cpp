// Markdown for a CI job summary: a table of scenarios, then the details and a Mermaid
// sequence diagram of each scenario that missed its expectations.
#include <ostream>

#include "common/utf8.hpp"
#include "scenarios/reports/load_reports.hpp"
#include "scenarios/reports/reports.hpp"
#include "scenarios/reports/text.hpp"
#include "scenarios/reports/traffic_reports.hpp"
#include "scenarios/reports/view.hpp"

namespace retryproof::scenarios {
namespace {

using namespace reports;

constexpr std::size_t kCollapsedStandardErrorLines = 20;  // in a collapsed block
constexpr std::size_t kDiagramEntries = 150;              // arrows a Mermaid diagram draws at most

std::string failed_verdicts_cell(const ScenarioResult& result) {
  std::vector<std::string> failed;
  for (const auto& verdict : result.verdicts) {
    if (verdict.status != VerdictStatus::fail) continue;
    std::string text = markdown_text(verdict.id);
    text += read_verdict(result, verdict) == Reading::expected_failure
                ? " (expected)"
                : " (" + to_string(verdict.severity) + ")";
    failed.push_back(text);
  }
  return failed.empty() ? "none" : join(failed, ", ");
}

std::string outcomes_cell(const ScenarioResult& result) {
  std::vector<std::string> outcomes;
  for (const auto& invocation : result.invocations)
    outcomes.push_back(markdown_text(outcome_text(invocation)));
  return outcomes.empty() ? "none" : join(outcomes, "; ");
}

void write_sequence_diagram(std::ostream& out, const ScenarioResult& result) {
  out << "```mermaid\nsequenceDiagram\n    participant Client\n    participant Provider\n";
  if (result.journal.empty())
    out << "    Note over Client,Provider: no requests reached the provider\n";
  std::size_t drawn = 0;
  for (const JournalEntry& entry : result.journal) {
    if (drawn == kDiagramEntries) {
      out << "    Note over Client,Provider: " << result.journal.size() - drawn
          << " more requests not drawn\n";
      break;
    }
    ++drawn;
    for (const auto& invocation : result.invocations) {
      if (invocation.first_seq == entry.seq && invocation.first_seq <= invocation.last_seq) {
        out << "    Note over Client: invocation " << invocation.number() << " ("
            << mermaid_text(invocation.operation) << ")\n";
      }
    }
    std::string request = entry.method + " " + escape_text(entry.path);
    if (entry.key) request += " key=" + escape_text(*entry.key);
    out << "    Client->>Provider: " << mermaid_text(request) << '\n';
    const auto fault = applied_fault(entry);
    if (fault) out << "    Note over Provider: fault " << mermaid_text(*fault) << '\n';
    if (!entry.status || !entry.delivered()) {
      out << "    Provider--xClient: "
          << mermaid_text(fault ? "dropped (" + *fault + ")" : std::string("dropped")) << '\n';
    } else {
      std::string answer = std::to_string(*entry.status);
      if (entry.job_id) answer += " " + *entry.job_id;
      if (entry.outcome != provider::Outcome::new_operation) {
        answer += " (" + provider::to_string(entry.outcome) + ")";
      }
      out << "    Provider-->>Client: " << mermaid_text(answer) << '\n';
    }
    for (const auto& invocation : result.invocations) {
      if (invocation.killed && invocation.last_seq == entry.seq &&
          invocation.first_seq <= invocation.last_seq) {
        out << "    Note over Client: killed\n";
      }
    }
  }
  out << "```\n";
}

// The last lines of the client's standard error in a collapsed block, as a fenced code
// block whose fence is longer than any run of backticks in it.
void write_standard_error_details(std::ostream& out, const InvocationResult& invocation) {
  const std::vector<std::string> all = split_lines(invocation.standard_error);
  if (all.empty()) return;
  std::vector<std::string> lines = last(all, kCollapsedStandardErrorLines);
  std::size_t longest = 0;
  for (auto& line : lines) {
    line = terminal_text(line);
    std::size_t run = 0;
    for (const char c : line) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  out << "<details><summary>standard error of invocation " << invocation.number();
  if (all.size() > lines.size())
    out << ", last " << lines.size() << " of " << all.size() << " lines";
  out << "</summary>\n\n" << fence << "text\n";
  for (const auto& line : lines)
    out << line << '\n';
  out << fence << "\n\n</details>\n\n";
}

// The met column: yes, **no**, or *inconclusive*.
std::string met_cell(const ScenarioResult& result) {
  switch (result.status()) {
    case ScenarioStatus::met:
      return "yes";
    case ScenarioStatus::inconclusive:
      return "*inconclusive*";
    case ScenarioStatus::failed:
      break;
  }
  return "**no**";
}

void write_inconclusive(std::ostream& out, const ScenarioResult& result) {
  if (result.inconclusive.empty()) return;
  out << "Could not tell (inconclusive, not counted as met):\n\n";
  for (const std::string& reason : inconclusive_texts(result))
    out << "- " << markdown_text(reason) << '\n';
  out << '\n';
}

void write_details(std::ostream& out, const RunSummary& run, const ScenarioResult& result) {
  out << "\n### " << markdown_text(result.name)
      << (result.status() == ScenarioStatus::inconclusive ? ": inconclusive"
                                                          : ": expectations not met")
      << "\n\n";
  if (!result.description.empty()) out << markdown_text(result.description) << "\n\n";
  if (!result.file.empty()) out << "File: " << code_span(result.file) << "\n\n";
  // A verdict that failed unexpectedly is listed once, under the failed verdicts below.
  bool any_unmet = false;
  for (const Unmet& unmet : result.unmet) {
    if (!unmet.failed_verdict.empty()) continue;
    if (!any_unmet) out << "Unmet expectations:\n\n";
    any_unmet = true;
    out << "- " << to_string(unmet.severity) << ": " << markdown_text(unmet.text) << '\n';
  }
  if (any_unmet) out << '\n';
  bool any_failed = false;
  for (const auto& verdict : result.verdicts) {
    if (verdict.status != VerdictStatus::fail) continue;
    if (!any_failed) out << "Failed verdicts:\n\n";
    any_failed = true;
    out << "- **" << markdown_text(verdict.id) << "**";
    out << (read_verdict(result, verdict) == Reading::expected_failure
                ? " (expected)"
                : " (" + to_string(verdict.severity) + ")");
    out << ": " << markdown_text(verdict.explanation);
    const auto uncited = seqs_not_mentioned(verdict.explanation, verdict.evidence);
    if (!uncited.empty()) out << " (evidence: " << seq_list(uncited) << ")";
    if (const std::string origins = origins_text(result, verdict.evidence); !origins.empty())
      out << " (" << markdown_text(origins) << ")";
    out << '\n';
  }
  if (any_failed) out << '\n';
  write_inconclusive(out, result);
  if (const std::string note = scale_note(result); !note.empty())
    out << markdown_text(note) << "\n\n";
  for (const auto& invocation : result.invocations) {
    if (invocation.client_error.empty()) continue;
    out << "Invocation " << invocation.number() << " (" << markdown_text(invocation.operation)
        << "): " << markdown_text(outcome_text(invocation)) << "\n\n";
    write_standard_error_details(out, invocation);
  }
  write_sequence_diagram(out, result);
  out << "\nReplay: " << code_span(replay_command(run, result)) << '\n';
}

}  // namespace

void write_markdown(std::ostream& out, const RunSummary& run) {
  if (run.subject.empty()) {
    out << "## retryproof: seed " << run.seed << ", client " << code_span(run.client)
        << markdown_text(time_scale_subject(run.time_scale)) << "\n\n";
  } else {
    out << "## retryproof " << markdown_text(run_subject(run)) << "\n\n";
  }
  out << summary_line(run) << ".\n\n";
  for (const auto& note : time_scale_notes(run))
    out << "> " << markdown_text(note) << "\n\n";
  out << "| scenario | met | jobs | POSTs | outcome | failed verdicts |\n";
  out << "| --- | --- | ---: | ---: | --- | --- |\n";
  for (const auto& result : run.results) {
    out << "| " << markdown_text(result.name) << " | " << met_cell(result) << " | "
        << result.jobs.size() << " | " << result.creates() << " | " << outcomes_cell(result)
        << " | " << failed_verdicts_cell(result) << " |\n";
  }
  for (const auto& result : run.results) {
    write_load_markdown(out, result);
    write_traffic_markdown(out, result);
  }
  for (const auto& result : run.results) {
    if (!result.met()) write_details(out, run, result);
  }
  out << "\nReplay the run: " << code_span(replay_command(run)) << '\n';
}

}  // namespace retryproof::scenarios
