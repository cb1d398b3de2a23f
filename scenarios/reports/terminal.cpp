// The terminal report: a block per scenario, a summary line, and the commands that replay.
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

constexpr std::size_t kStandardErrorLines = 20;  // of the client's
// A fleet under traffic runs thousands of operations: past these, the terminal shows the
// first rows and the journal's evidence, and the JSON report has the rest.
constexpr std::size_t kMostInvocationRows = 40;
constexpr std::size_t kMostTimelineRows = 200;

constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kReset = "\x1b[0m";

std::string paint(const std::string& text, const char* code, Colour colour) {
  if (colour == Colour::off || code == nullptr || text.empty()) return text;
  return code + text + kReset;
}

struct Cell {
  std::string text;  // terminal_text already
  const char* colour = nullptr;
};
using Row = std::vector<Cell>;

// Columns padded to their widest cell, two spaces apart; no trailing spaces.
void write_table(std::ostream& out, std::string_view indent, const std::vector<Row>& rows,
                 Colour colour) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], display_width(row[i].text));
  }
  for (const auto& row : rows) {
    std::string line(indent);
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += paint(row[i].text, row[i].colour, colour);
      if (i + 1 < row.size()) line += std::string(widths[i] - display_width(row[i].text) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out << line << '\n';
  }
}

Row verdict_row(const ScenarioResult& result, const Verdict& verdict) {
  const std::string explanation = terminal_text(verdict.explanation);
  const auto uncited = seqs_not_mentioned(verdict.explanation, verdict.evidence);
  const std::string cited = uncited.empty() ? "" : " (" + seq_list(uncited) + ")";
  const Cell id{terminal_text(verdict.id)};
  switch (read_verdict(result, verdict)) {
    case Reading::passed:
      return {id, {"pass", kGreen}};
    case Reading::failed:
      return {id, {"FAIL " + to_string(verdict.severity), kRed}, {explanation + cited}};
    case Reading::expected_failure:
      return {id, {"fail (expected)"}, {explanation + cited}};
    case Reading::missed_violation:
      return {id, {to_string(verdict.status) + ", expected to fail", kRed}, {explanation}};
    case Reading::not_applicable:
      return {id, {"n/a"}, {explanation}};
    case Reading::inconclusive:
      return {id, {"inconclusive", kYellow}, {explanation + cited}};
  }
  return {};
}

void write_timeline(std::ostream& out, const ScenarioResult& result, Colour colour) {
  if (result.journal.empty()) {
    out << "  timeline: no requests reached the provider\n";
    return;
  }
  const std::set<std::uint64_t> evidence = evidence_of_failures(result);
  out << "  timeline (* marks evidence of a failed verdict):\n";
  std::vector<Row> rows;
  rows.push_back({{""},
                  {"seq"},
                  {"at"},
                  {"method"},
                  {"path"},
                  {"key"},
                  {"outcome"},
                  {"fault"},
                  {"response"},
                  {"job"}});
  // A journal merged from several: where each entry can be found in its own file.
  const bool merged = !result.origins.empty();
  if (merged) rows.back().push_back({"from"});
  const bool long_journal = result.journal.size() > kMostTimelineRows;
  std::size_t shown = 0;
  for (const JournalEntry& entry : result.journal) {
    const bool cited = evidence.contains(entry.seq);
    if (long_journal && !cited && entry.seq > kMostTimelineRows / 2) continue;
    if (long_journal && ++shown > kMostTimelineRows) break;
    rows.push_back({{cited ? "*" : "", cited ? kRed : nullptr},
                    {std::to_string(entry.seq)},
                    {"+" + std::to_string(entry.at.count()) + "ms"},
                    {terminal_text(entry.method)},
                    {escape_text(entry.path)},
                    {entry.key ? escape_text(*entry.key) : "-"},
                    {provider::to_string(entry.outcome)},
                    {terminal_text(applied_fault(entry).value_or("-"))},
                    {response_text(entry)},
                    {terminal_text(entry.job_id.value_or("-"))}});
    if (merged) rows.back().push_back({origin_text(result, entry.seq)});
  }
  write_table(out, "    ", rows, colour);
  if (long_journal) {
    out << "    (" << result.journal.size() - (rows.size() - 1) << " more of its "
        << result.journal.size()
        << " entries not shown: the first, then those cited; the JSON report has every one)\n";
  }
}

void write_standard_errors(std::ostream& out, const ScenarioResult& result) {
  for (const auto& invocation : result.invocations) {
    if (invocation.client_error.empty()) continue;
    const std::vector<std::string> lines = split_lines(invocation.standard_error);
    out << "  standard error of invocation " << invocation.number() << " ("
        << terminal_text(invocation.operation) << ")";
    if (lines.empty()) {
      out << ": empty\n";
      continue;
    }
    if (lines.size() > kStandardErrorLines) {
      out << ", last " << kStandardErrorLines << " of " << lines.size() << " lines";
    }
    out << ":\n";
    for (const auto& line : last(lines, kStandardErrorLines)) {
      std::string text = "    | " + terminal_text(line);
      while (!text.empty() && text.back() == ' ')
        text.pop_back();
      out << text << '\n';
    }
  }
}

const char* status_colour(ScenarioStatus status) {
  switch (status) {
    case ScenarioStatus::met:
      return kGreen;
    case ScenarioStatus::inconclusive:
      return kYellow;
    case ScenarioStatus::failed:
      break;
  }
  return kRed;
}

// The scenario's heading, what it ran with, its plan and the harness's stalls.
void write_heading(std::ostream& out, const ScenarioResult& result, Colour colour) {
  std::string heading = paint(scenario_mark(result), status_colour(result.status()), colour) +
                        "  " + paint(terminal_text(result.name), kBold, colour);
  if (!result.file.empty()) heading += "  (" + terminal_text(result.file) + ")";
  out << heading << '\n';
  if (!result.description.empty()) out << "  " << terminal_text(result.description) << '\n';
  out << "  jobs " << result.jobs.size() << ", POSTs " << result.creates() << ", ";
  // Traffic judged alone had no client run and no seed: its description says what it was.
  if (result.policy.from_scenario)
    out << "client " << terminal_text(result.client) << ", seed " << result.seed << ", ";
  out << policy_text(result.policy) << '\n';
  if (const std::string note = scale_note(result); !note.empty())
    out << "  " << terminal_text(note) << '\n';
  for (const provider::PlanUse& use : result.planned)
    out << "  planned: " << terminal_text(use.describe()) << '\n';
  for (const Stall& stall : result.stalls) {
    out << "  harness stalled: " << stall.lasted().count() << " ms from +" << stall.from.count()
        << "ms (" << terminal_text(stall.what) << ")\n";
  }
}

// One row per invocation: its operation, what it reported, the seqs it was charged.
void write_invocations(std::ostream& out, const ScenarioResult& result, Colour colour) {
  if (result.invocations.empty()) {
    out << "  invocations: none\n";
  } else {
    out << "  invocations:\n";
    std::vector<Row> rows;
    for (const auto& invocation : result.invocations) {
      if (rows.size() == kMostInvocationRows) break;
      const bool bad = !invocation.killed && !invocation.client_error.empty();
      rows.push_back({{std::to_string(invocation.number())},
                      {terminal_text(invocation.operation)},
                      {terminal_text(outcome_text(invocation)), bad ? kRed : nullptr},
                      {seq_range(invocation)}});
    }
    write_table(out, "    ", rows, colour);
    if (result.invocations.size() > rows.size()) {
      out << "    (and " << result.invocations.size() - rows.size()
          << " more: the JSON report has every one)\n";
    }
  }
}

void write_block(std::ostream& out, const ScenarioResult& result, Colour colour) {
  const bool met = result.met();
  write_heading(out, result, colour);
  for (const std::string& line : load_terminal_lines(result))
    out << line << '\n';
  for (const std::string& line : traffic_terminal_lines(result))
    out << line << '\n';

  write_invocations(out, result, colour);

  if (result.verdicts.empty()) {
    out << "  verdicts: none\n";
  } else {
    out << "  verdicts:\n";
    std::vector<Row> rows;
    for (const auto& verdict : result.verdicts)
      rows.push_back(verdict_row(result, verdict));
    write_table(out, "    ", rows, colour);
  }

  if (!result.unmet.empty()) {
    out << "  expectations not met:\n";
    for (const auto& unmet : unmet_texts(result))
      out << "    - " << terminal_text(unmet) << '\n';
  }
  if (!result.inconclusive.empty()) {
    out << "  could not tell (inconclusive, not counted as met):\n";
    for (const auto& reason : inconclusive_texts(result))
      out << "    - " << terminal_text(reason) << '\n';
  }
  if (!met) {
    write_timeline(out, result, colour);
    write_standard_errors(out, result);
  }
}

}  // namespace

void write_terminal_report(std::ostream& out, const RunSummary& run, Colour colour) {
  out << "retryproof " << terminal_text(run_subject(run)) << '\n';
  const std::vector<std::string> notes = time_scale_notes(run);
  if (!run.time_scale.probe.empty()) out << terminal_text(run.time_scale.probe) << '\n';
  for (const auto& result : run.results) {
    out << '\n';
    write_block(out, result, colour);
  }
  const bool all_met = count_met(run) == run.results.size();
  const bool none_failed = count_met(run) + count_inconclusive(run) == run.results.size();
  out << '\n'
      << paint(summary_line(run), all_met ? kGreen : (none_failed ? kYellow : kRed), colour)
      << '\n';
  // The misses grouped by how bad they are, harm first: what to fix first.
  for (const Severity severity : {Severity::harm, Severity::policy}) {
    std::vector<std::string> names;
    for (const auto& result : run.results) {
      if (worst_miss(result) != severity) continue;
      std::vector<std::string> failed;
      for (const auto& verdict : result.verdicts) {
        if (read_verdict(result, verdict) == Reading::failed && verdict.severity == severity)
          failed.push_back(verdict.id);
      }
      names.push_back(terminal_text(result.name) +
                      (failed.empty() ? "" : " (" + join(failed, ", ") + ")"));
    }
    if (names.empty()) continue;
    out << (severity == Severity::harm ? "with harm: " : "policy only: ") << join(names, "; ")
        << '\n';
  }
  std::vector<std::string> undecided;
  for (const auto& result : run.results) {
    if (result.status() == ScenarioStatus::inconclusive)
      undecided.push_back(terminal_text(result.name));
  }
  if (!undecided.empty()) out << "inconclusive: " << join(undecided, "; ") << '\n';
  for (const auto& skipped : run.skipped)
    out << "skipped " << terminal_text(skipped) << '\n';
  // Which scenarios ran below the scale asked for, after the summary.
  for (const auto& note : notes) {
    if (note != run.time_scale.probe) out << terminal_text(note) << '\n';
  }
  out << "replay: " << terminal_text(replay_command(run)) << '\n';
  for (const auto& result : run.results) {
    if (result.met() || !run.replay.empty()) continue;  // a summary's own replay is the one
    out << "replay " << terminal_text(result.name) << ": "
        << terminal_text(replay_command(run, result)) << '\n';
  }
}

}  // namespace retryproof::scenarios
