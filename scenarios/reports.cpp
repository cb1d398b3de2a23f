#include "scenarios/reports.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_text.hpp"
#include "common/utf8.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

constexpr std::size_t kStandardErrorLines = 20;        // of the client's, in the terminal
constexpr std::size_t kJunitStandardErrorLines = 200;  // in <system-err>
constexpr std::size_t kDiagramEntries = 150;           // arrows a Mermaid diagram draws at most

// ---------------------------------------------------------------------------------------------
// Text hygiene. Clients write what they like to standard error, and keys come from clients, so
// every string that reaches a report is treated as untrusted bytes.

// The same JSON with every string (and key) made valid UTF-8, so that dump() cannot throw.
json clean_json(const json& value) {
  if (value.is_string()) return valid_utf8(value.get_ref<const std::string&>());
  if (value.is_array()) {
    json result = json::array();
    for (const auto& element : value)
      result.push_back(clean_json(element));
    return result;
  }
  if (value.is_object()) {
    json result = json::object();
    for (const auto& [key, element] : value.items())
      result[valid_utf8(key)] = clean_json(element);
    return result;
  }
  return value;
}

bool is_control(std::uint32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F);
}

// One line for a terminal: no escape sequences or other control characters a client could use
// to repaint the screen; tabs and line breaks become spaces.
std::string terminal_text(std::string_view text) {
  std::string result;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    if (code_point == '\t' || code_point == '\n' || code_point == '\r') {
      result += ' ';
    } else if (!is_control(code_point)) {
      result += bytes;
    }
  });
  return result;
}

// Columns on a terminal, counting code points (valid UTF-8 assumed).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
  }));
}

// XML 1.0: the five special characters as entities, the control characters it forbids (and
// U+FFFE, U+FFFF) dropped. In attributes, tabs and line breaks become character references so
// that attribute normalisation keeps them.
std::string xml_escape(std::string_view text, bool attribute) {
  std::string result;
  result.reserve(text.size());
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '&':
        result += "&amp;";
        return;
      case '<':
        result += "&lt;";
        return;
      case '>':
        result += "&gt;";
        return;
      case '"':
        result += "&quot;";
        return;
      case '\'':
        result += "&apos;";
        return;
      case '\t':
        result += attribute ? "&#9;" : "\t";
        return;
      case '\n':
        result += attribute ? "&#10;" : "\n";
        return;
      case '\r':
        result += "&#13;";
        return;
      default:
        break;
    }
    if (code_point < 0x20 || code_point == 0xFFFE || code_point == 0xFFFF) return;
    result += bytes;
  });
  return result;
}

// Markdown text, also inside a table cell: one line, the characters Markdown gives a meaning
// escaped, HTML's specials as entities.
std::string markdown_text(std::string_view text) {
  std::string result;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '&':
        result += "&amp;";
        return;
      case '<':
        result += "&lt;";
        return;
      case '>':
        result += "&gt;";
        return;
      case '\\':
      case '|':
      case '*':
      case '_':
      case '`':
      case '[':
      case ']':
      case '#':
      case '~':
        result += '\\';
        result += static_cast<char>(code_point);
        return;
      default:
        break;
    }
    if (is_control(code_point)) {
      result += ' ';
    } else {
      result += bytes;
    }
  });
  return result;
}

// A Markdown code span around `text`, with a fence longer than any run of backticks in it.
std::string code_span(std::string_view text) {
  std::string clean;
  std::size_t run = 0;
  std::size_t longest = 0;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    run = code_point == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (code_point == '|') {
      clean += "\\|";  // GFM splits table cells before it reads code spans
    } else {
      clean += is_control(code_point) ? std::string_view(" ") : bytes;
    }
  });
  const std::string fence(longest + 1, '`');
  const bool pad = !clean.empty() && (clean.front() == '`' || clean.back() == '`');
  return fence + (pad ? " " : "") + clean + (pad ? " " : "") + fence;
}

// Text of a Mermaid message or note: entity codes for what its parser reads as syntax (; ends a
// statement, # starts an entity, < and > become HTML) and no line breaks.
std::string mermaid_text(std::string_view text) {
  std::string result;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '#':
        result += "#35;";
        return;
      case ';':
        result += "#59;";
        return;
      case '|':
        result += "#124;";
        return;
      case '<':
        result += "#lt;";
        return;
      case '>':
        result += "#gt;";
        return;
      case '`':
        result += "#96;";
        return;
      default:
        break;
    }
    if (is_control(code_point)) {
      result += ' ';
    } else {
      result += bytes;
    }
  });
  return result;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string result;
  for (const auto& part : parts) {
    if (!result.empty()) result += separator;
    result += part;
  }
  return result;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Reading the model.

// A verdict read against what the scenario expects of it.
enum class Reading {
  passed,
  failed,            // and the scenario does not expect it to
  expected_failure,  // failed, as the scenario expects
  missed_violation,  // the scenario expects it to fail; it passed or did not apply
  not_applicable,
};

Reading read_verdict(const ScenarioResult& result, const Verdict& verdict) {
  const bool expected =
      std::find(result.expected_violations.begin(), result.expected_violations.end(), verdict.id) !=
      result.expected_violations.end();
  switch (verdict.status) {
    case VerdictStatus::fail:
      return expected ? Reading::expected_failure : Reading::failed;
    case VerdictStatus::pass:
      return expected ? Reading::missed_violation : Reading::passed;
    case VerdictStatus::not_applicable:
      return expected ? Reading::missed_violation : Reading::not_applicable;
  }
  return Reading::not_applicable;
}

const json& array_or_empty(const json& value) {
  static const json empty = json::array();
  return value.is_array() ? value : empty;
}

const json& journal_of(const ScenarioResult& result) {
  return array_or_empty(result.journal);
}

// An array of jobs; GET /_test/jobs's {"count","jobs"} is read too.
const json& jobs_of(const ScenarioResult& result) {
  if (result.jobs.is_object()) {
    const auto jobs = result.jobs.find("jobs");
    if (jobs != result.jobs.end()) return array_or_empty(*jobs);
  }
  return array_or_empty(result.jobs);
}

// A field of a journal entry as text; `absent` when it is missing or null.
std::string field_text(const json& entry, const char* name, std::string_view absent = "-") {
  if (!entry.is_object()) return std::string(absent);
  const auto field = entry.find(name);
  if (field == entry.end() || field->is_null()) return std::string(absent);
  if (field->is_string()) return valid_utf8(field->get_ref<const std::string&>());
  return compact_json(*field);
}

std::optional<std::uint64_t> seq_of(const json& entry) {
  if (!entry.is_object()) return std::nullopt;
  const auto seq = entry.find("seq");
  if (seq == entry.end() || !seq->is_number_integer()) return std::nullopt;
  return seq->get<std::uint64_t>();
}

bool delivered(const json& entry) {
  if (!entry.is_object()) return false;
  const auto field = entry.find("delivered");
  return field != entry.end() && field->is_boolean() && field->get<bool>();
}

// The fault the provider applied, if any ("none" is no fault).
std::optional<std::string> applied_fault(const json& entry) {
  const std::string fault = field_text(entry, "fault", "");
  if (fault.empty() || fault == "none") return std::nullopt;
  return fault;
}

int count_posts(const ScenarioResult& result) {
  int posts = 0;
  for (const auto& entry : journal_of(result)) {
    if (field_text(entry, "method") == "POST" && field_text(entry, "path") == "/jobs") ++posts;
  }
  return posts;
}

std::size_t count_met(const RunSummary& run) {
  return static_cast<std::size_t>(std::count_if(run.results.begin(), run.results.end(),
                                                [](const ScenarioResult& r) { return r.met(); }));
}

std::string response_text(const json& entry) {
  const std::string status = field_text(entry, "status", "");
  if (status.empty()) return "no response";
  return delivered(entry) ? status : status + " (not delivered)";
}

std::string seq_list(const std::vector<std::uint64_t>& seqs) {
  std::vector<std::string> parts;
  for (const auto seq : seqs)
    parts.push_back(std::to_string(seq));
  return parts.empty() ? "no journal entries cited" : "seq " + join(parts, ", ");
}

std::set<std::uint64_t> evidence_of_failures(const ScenarioResult& result) {
  std::set<std::uint64_t> seqs;
  for (const auto& verdict : result.verdicts) {
    if (verdict.status == VerdictStatus::fail)
      seqs.insert(verdict.evidence.begin(), verdict.evidence.end());
  }
  return seqs;
}

// "succeeded jobId=job_1", "killed by SIGKILL", "client error: no outcome line (exit code 1)".
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
  const json& outcome = invocation.outcome;
  if (outcome.is_null()) return "no outcome";
  if (outcome.is_object() && outcome.contains("outcome") && outcome["outcome"].is_string()) {
    std::string text = valid_utf8(outcome["outcome"].get_ref<const std::string&>());
    for (const auto& [key, value] : outcome.items()) {
      if (key == "outcome") continue;
      text += " " + valid_utf8(key) + "=" +
              (value.is_string() ? valid_utf8(value.get_ref<const std::string&>())
                                 : compact_json(value));
    }
    return text;
  }
  return compact_json(outcome);
}

std::string seq_range(const InvocationResult& invocation) {
  if (invocation.last_seq < invocation.first_seq) return "no requests";
  if (invocation.last_seq == invocation.first_seq)
    return "seq " + std::to_string(invocation.first_seq);
  return "seq " + std::to_string(invocation.first_seq) + "-" + std::to_string(invocation.last_seq);
}

// "#3 +120ms POST /jobs key=K new fault=commit-then-drop -> no response job=job_1"
std::string timeline_line(const json& entry) {
  std::string line = "#" + field_text(entry, "seq", "?") + " +" + field_text(entry, "atMs", "?") +
                     "ms " + field_text(entry, "method") + " " + field_text(entry, "path");
  const std::string key = field_text(entry, "key", "");
  if (!key.empty()) line += " key=" + key;
  line += " " + field_text(entry, "outcome");
  if (const auto fault = applied_fault(entry)) line += " fault=" + *fault;
  line += " -> " + response_text(entry);
  const std::string job = field_text(entry, "jobId", "");
  if (!job.empty()) line += " job=" + job;
  return line;
}

std::string replay_command(const RunSummary& run) {
  return "retryproof run --seed " + std::to_string(run.seed) + " --client " +
         shell_quote(run.client);
}

std::string summary_line(const RunSummary& run) {
  const std::size_t met = count_met(run);
  return std::to_string(run.results.size()) + " scenarios: " + std::to_string(met) +
         " met their expectations, " + std::to_string(run.results.size() - met) + " did not";
}

// ---------------------------------------------------------------------------------------------
// The terminal report.

constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kReset = "\x1b[0m";

std::string paint(const std::string& text, const char* code, bool colour) {
  if (!colour || code == nullptr || text.empty()) return text;
  return code + text + kReset;
}

struct Cell {
  std::string text;  // terminal_text already
  const char* colour = nullptr;
};
using Row = std::vector<Cell>;

// Columns padded to their widest cell, two spaces apart; no trailing spaces.
void write_table(std::ostream& out, std::string_view indent, const std::vector<Row>& rows,
                 bool colour) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i].text));
    }
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
  const std::string cited = verdict.evidence.empty() ? "" : " (" + seq_list(verdict.evidence) + ")";
  switch (read_verdict(result, verdict)) {
    case Reading::passed:
      return {{terminal_text(verdict.id)}, {"pass", kGreen}};
    case Reading::failed:
      return {{terminal_text(verdict.id)}, {"FAIL", kRed}, {explanation + cited}};
    case Reading::expected_failure:
      return {{terminal_text(verdict.id)}, {"fail (expected)"}, {explanation + cited}};
    case Reading::missed_violation:
      return {{terminal_text(verdict.id)},
              {to_string(verdict.status) + ", expected to fail", kRed},
              {explanation}};
    case Reading::not_applicable:
      return {{terminal_text(verdict.id)}, {"n/a"}, {explanation}};
  }
  return {};
}

void write_timeline(std::ostream& out, const ScenarioResult& result, bool colour) {
  const json& journal = journal_of(result);
  if (journal.empty()) {
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
  for (const auto& entry : journal) {
    const auto seq = seq_of(entry);
    const bool cited = seq && evidence.contains(*seq);
    rows.push_back({{cited ? "*" : "", cited ? kRed : nullptr},
                    {terminal_text(field_text(entry, "seq", "?"))},
                    {"+" + terminal_text(field_text(entry, "atMs", "?")) + "ms"},
                    {terminal_text(field_text(entry, "method"))},
                    {terminal_text(field_text(entry, "path"))},
                    {terminal_text(field_text(entry, "key"))},
                    {terminal_text(field_text(entry, "outcome"))},
                    {terminal_text(applied_fault(entry).value_or("-"))},
                    {terminal_text(response_text(entry))},
                    {terminal_text(field_text(entry, "jobId"))}});
  }
  write_table(out, "    ", rows, colour);
}

void write_standard_errors(std::ostream& out, const ScenarioResult& result) {
  for (const auto& invocation : result.invocations) {
    if (invocation.client_error.empty()) continue;
    std::vector<std::string> lines = split_lines(invocation.standard_error);
    out << "  standard error of invocation " << invocation.index << " ("
        << terminal_text(invocation.operation) << ")";
    if (lines.empty()) {
      out << ": empty\n";
      continue;
    }
    if (lines.size() > kStandardErrorLines) {
      out << ", last " << kStandardErrorLines << " of " << lines.size() << " lines";
      lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(kStandardErrorLines));
    }
    out << ":\n";
    for (const auto& line : lines) {
      std::string text = "    | " + terminal_text(line);
      while (!text.empty() && text.back() == ' ')
        text.pop_back();
      out << text << '\n';
    }
  }
}

void write_terminal_block(std::ostream& out, const ScenarioResult& result, bool colour) {
  const bool met = result.met();
  std::string heading = paint(met ? "PASS" : "FAIL", met ? kGreen : kRed, colour) + "  " +
                        paint(terminal_text(result.name), kBold, colour);
  if (!result.file.empty()) heading += "  (" + terminal_text(result.file) + ")";
  out << heading << '\n';
  if (!result.description.empty()) out << "  " << terminal_text(result.description) << '\n';
  out << "  jobs " << jobs_of(result).size() << ", POSTs " << count_posts(result) << ", client "
      << terminal_text(result.client) << ", seed " << result.seed << '\n';

  if (result.invocations.empty()) {
    out << "  invocations: none\n";
  } else {
    out << "  invocations:\n";
    std::vector<Row> rows;
    for (const auto& invocation : result.invocations) {
      const bool bad = !invocation.killed && !invocation.client_error.empty();
      rows.push_back({{std::to_string(invocation.index)},
                      {terminal_text(invocation.operation)},
                      {terminal_text(outcome_text(invocation)), bad ? kRed : nullptr},
                      {seq_range(invocation)}});
    }
    write_table(out, "    ", rows, colour);
  }

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
    for (const auto& unmet : result.unmet)
      out << "    - " << terminal_text(unmet) << '\n';
  }
  if (!met) {
    write_timeline(out, result, colour);
    write_standard_errors(out, result);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON.

json verdict_json(const Verdict& verdict) {
  return {{"id", valid_utf8(verdict.id)},
          {"status", to_string(verdict.status)},
          {"explanation", valid_utf8(verdict.explanation)},
          {"evidence", verdict.evidence}};
}

json invocation_json(const InvocationResult& invocation) {
  return {{"index", invocation.index},
          {"operation", valid_utf8(invocation.operation)},
          {"payload", clean_json(invocation.payload)},
          {"killed", invocation.killed},
          {"outcome", clean_json(invocation.outcome)},
          {"clientError", valid_utf8(invocation.client_error)},
          {"exit", valid_utf8(invocation.exit)},
          {"standardError", valid_utf8(invocation.standard_error)},
          {"firstSeq", invocation.first_seq},
          {"lastSeq", invocation.last_seq},
          {"startedAtMs", invocation.started_at.count()},
          {"endedAtMs", invocation.ended_at.count()}};
}

json strings_json(const std::vector<std::string>& strings) {
  json result = json::array();
  for (const auto& text : strings)
    result.push_back(valid_utf8(text));
  return result;
}

json scenario_json(const ScenarioResult& result) {
  json verdicts = json::array();
  for (const auto& verdict : result.verdicts)
    verdicts.push_back(verdict_json(verdict));
  json invocations = json::array();
  for (const auto& invocation : result.invocations)
    invocations.push_back(invocation_json(invocation));
  return {{"name", valid_utf8(result.name)},
          {"description", valid_utf8(result.description)},
          {"file", valid_utf8(result.file)},
          {"client", valid_utf8(result.client)},
          {"seed", result.seed},
          {"met", result.met()},
          {"unmet", strings_json(result.unmet)},
          {"expectedViolations", strings_json(result.expected_violations)},
          {"posts", count_posts(result)},
          {"verdicts", std::move(verdicts)},
          {"invocations", std::move(invocations)},
          {"journal", clean_json(result.journal)},
          {"jobs", clean_json(result.jobs)}};
}

// ---------------------------------------------------------------------------------------------
// JUnit XML.

struct TestCase {
  enum class Kind { passed, failure, skipped } kind = Kind::passed;
  std::string classname;
  std::string name;
  double seconds = 0;
  std::string message;  // of <failure> or <skipped>
  std::string body;     // of <failure>
  std::string system_out;
  std::string system_err;
};

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << seconds;
  return text.str();
}

// How long the scenario's invocations took, on the provider's clock.
double scenario_seconds(const ScenarioResult& result) {
  if (result.invocations.empty()) return 0;
  Millis first = result.invocations.front().started_at;
  Millis last = result.invocations.front().ended_at;
  for (const auto& invocation : result.invocations) {
    first = std::min(first, invocation.started_at);
    last = std::max(last, invocation.ended_at);
  }
  return last > first ? static_cast<double>((last - first).count()) / 1000.0 : 0.0;
}

// The run's timeline for a failure body; entries the verdict cites are marked with *.
std::string timeline_text(const ScenarioResult& result, const std::vector<std::uint64_t>& cited) {
  const json& journal = journal_of(result);
  if (journal.empty()) return "timeline: no requests reached the provider\n";
  std::string text = "timeline (* marks the cited entries):\n";
  for (const auto& entry : journal) {
    const auto seq = seq_of(entry);
    const bool marked = seq && std::find(cited.begin(), cited.end(), *seq) != cited.end();
    text += (marked ? "* " : "  ") + timeline_line(entry) + "\n";
  }
  return text;
}

std::string invocations_text(const ScenarioResult& result) {
  std::string text = "jobs " + std::to_string(jobs_of(result).size()) + ", POSTs " +
                     std::to_string(count_posts(result)) + "\n";
  for (const auto& invocation : result.invocations) {
    text += "invocation " + std::to_string(invocation.index) + " (" +
            valid_utf8(invocation.operation) + "): " + outcome_text(invocation) + " [" +
            seq_range(invocation) + "]\n";
  }
  return text;
}

TestCase verdict_case(const ScenarioResult& result, const Verdict& verdict) {
  TestCase test{.classname = result.name, .name = verdict.id};
  const std::string cited = "evidence: " + seq_list(verdict.evidence) + "\n";
  switch (read_verdict(result, verdict)) {
    case Reading::passed:
      test.system_out = verdict.explanation;
      break;
    case Reading::failed:
      test.kind = TestCase::Kind::failure;
      test.message = verdict.explanation;
      test.body = cited + timeline_text(result, verdict.evidence);
      break;
    case Reading::expected_failure:
      test.system_out = "failed, as the scenario expects: " + verdict.explanation + "\n" + cited;
      break;
    case Reading::missed_violation:
      test.kind = TestCase::Kind::failure;
      test.message =
          "the scenario expects this verdict to fail; it " +
          std::string(verdict.status == VerdictStatus::pass ? "passed" : "did not apply") + ": " +
          verdict.explanation;
      test.body = timeline_text(result, {});
      break;
    case Reading::not_applicable:
      test.kind = TestCase::Kind::skipped;
      test.message = verdict.explanation;
      break;
  }
  return test;
}

TestCase expectations_case(const ScenarioResult& result) {
  TestCase test{.classname = result.name, .name = "expectations"};
  test.seconds = scenario_seconds(result);
  test.system_out = invocations_text(result);
  if (!result.unmet.empty()) {
    test.kind = TestCase::Kind::failure;
    test.message = join(result.unmet, "; ");
    test.body = join(result.unmet, "\n") + "\n" + timeline_text(result, {});
  }
  for (const auto& invocation : result.invocations) {
    if (invocation.client_error.empty()) continue;
    std::vector<std::string> lines = split_lines(invocation.standard_error);
    if (lines.size() > kJunitStandardErrorLines) {
      lines.erase(lines.begin(),
                  lines.end() - static_cast<std::ptrdiff_t>(kJunitStandardErrorLines));
    }
    test.system_err += "standard error of invocation " + std::to_string(invocation.index) + " (" +
                       invocation.operation + "):\n" + join(lines, "\n") + "\n";
  }
  return test;
}

void write_test_case(std::ostream& out, const TestCase& test) {
  out << "    <testcase classname=\"" << xml_escape(test.classname, true) << "\" name=\""
      << xml_escape(test.name, true) << "\" time=\"" << seconds_text(test.seconds) << "\"";
  const bool empty =
      test.kind == TestCase::Kind::passed && test.system_out.empty() && test.system_err.empty();
  if (empty) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (test.kind == TestCase::Kind::failure) {
    out << "      <failure message=\"" << xml_escape(test.message, true) << "\" type=\"verdict\">"
        << xml_escape(test.body, false) << "</failure>\n";
  } else if (test.kind == TestCase::Kind::skipped) {
    out << "      <skipped message=\"" << xml_escape(test.message, true) << "\"/>\n";
  }
  if (!test.system_out.empty()) {
    out << "      <system-out>" << xml_escape(test.system_out, false) << "</system-out>\n";
  }
  if (!test.system_err.empty()) {
    out << "      <system-err>" << xml_escape(test.system_err, false) << "</system-err>\n";
  }
  out << "    </testcase>\n";
}

// ---------------------------------------------------------------------------------------------
// Markdown.

std::string failed_verdicts_cell(const ScenarioResult& result) {
  std::vector<std::string> failed;
  for (const auto& verdict : result.verdicts) {
    if (verdict.status != VerdictStatus::fail) continue;
    std::string text = markdown_text(verdict.id);
    if (read_verdict(result, verdict) == Reading::expected_failure) text += " (expected)";
    failed.push_back(text);
  }
  return failed.empty() ? "none" : join(failed, ", ");
}

std::string outcomes_cell(const ScenarioResult& result) {
  std::vector<std::string> outcomes;
  for (const auto& invocation : result.invocations) {
    outcomes.push_back(markdown_text(outcome_text(invocation)));
  }
  return outcomes.empty() ? "none" : join(outcomes, "; ");
}

void write_sequence_diagram(std::ostream& out, const ScenarioResult& result) {
  out << "```mermaid\nsequenceDiagram\n    participant Client\n    participant Provider\n";
  const json& journal = journal_of(result);
  if (journal.empty()) out << "    Note over Client,Provider: no requests reached the provider\n";
  std::size_t drawn = 0;
  for (const auto& entry : journal) {
    if (drawn == kDiagramEntries) {
      out << "    Note over Client,Provider: " << journal.size() - drawn
          << " more requests not drawn\n";
      break;
    }
    ++drawn;
    const auto seq = seq_of(entry);
    for (const auto& invocation : result.invocations) {
      if (seq && invocation.first_seq == *seq && invocation.first_seq <= invocation.last_seq) {
        out << "    Note over Client: invocation " << invocation.index << " ("
            << mermaid_text(invocation.operation) << ")\n";
      }
    }
    std::string request = field_text(entry, "method") + " " + field_text(entry, "path");
    const std::string key = field_text(entry, "key", "");
    if (!key.empty()) request += " key=" + key;
    out << "    Client->>Provider: " << mermaid_text(request) << '\n';
    const auto fault = applied_fault(entry);
    if (fault) out << "    Note over Provider: fault " << mermaid_text(*fault) << '\n';
    const std::string status = field_text(entry, "status", "");
    if (status.empty() || !delivered(entry)) {
      out << "    Provider--xClient: "
          << mermaid_text(fault ? "dropped (" + *fault + ")" : std::string("dropped")) << '\n';
    } else {
      std::string answer = status;
      const std::string job = field_text(entry, "jobId", "");
      if (!job.empty()) answer += " " + job;
      const std::string outcome = field_text(entry, "outcome", "");
      if (!outcome.empty() && outcome != "new") answer += " (" + outcome + ")";
      out << "    Provider-->>Client: " << mermaid_text(answer) << '\n';
    }
    for (const auto& invocation : result.invocations) {
      if (seq && invocation.killed && invocation.last_seq == *seq &&
          invocation.first_seq <= invocation.last_seq) {
        out << "    Note over Client: killed\n";
      }
    }
  }
  out << "```\n";
}

// The last lines of the client's standard error in a collapsed block, as a fenced code block
// whose fence is longer than any run of backticks in it.
void write_standard_error_details(std::ostream& out, const InvocationResult& invocation) {
  std::vector<std::string> lines = split_lines(invocation.standard_error);
  if (lines.empty()) return;
  const std::size_t total = lines.size();
  if (lines.size() > kStandardErrorLines) {
    lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(kStandardErrorLines));
  }
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
  out << "<details><summary>standard error of invocation " << invocation.index;
  if (total > lines.size()) out << ", last " << lines.size() << " of " << total << " lines";
  out << "</summary>\n\n" << fence << "text\n";
  for (const auto& line : lines)
    out << line << '\n';
  out << fence << "\n\n</details>\n\n";
}

void write_markdown_details(std::ostream& out, const RunSummary& run,
                            const ScenarioResult& result) {
  out << "\n### " << markdown_text(result.name) << ": expectations not met\n\n";
  if (!result.description.empty()) out << markdown_text(result.description) << "\n\n";
  if (!result.file.empty()) out << "File: " << code_span(result.file) << "\n\n";
  if (!result.unmet.empty()) {
    out << "Unmet expectations:\n\n";
    for (const auto& unmet : result.unmet)
      out << "- " << markdown_text(unmet) << '\n';
    out << '\n';
  }
  bool any_failed = false;
  for (const auto& verdict : result.verdicts) {
    if (verdict.status != VerdictStatus::fail) continue;
    if (!any_failed) out << "Failed verdicts:\n\n";
    any_failed = true;
    out << "- **" << markdown_text(verdict.id) << "**";
    if (read_verdict(result, verdict) == Reading::expected_failure) out << " (expected)";
    out << ": " << markdown_text(verdict.explanation)
        << " (evidence: " << seq_list(verdict.evidence) << ")\n";
  }
  if (any_failed) out << '\n';
  for (const auto& invocation : result.invocations) {
    if (invocation.client_error.empty()) continue;
    out << "Invocation " << invocation.index << " (" << markdown_text(invocation.operation)
        << "): " << markdown_text(outcome_text(invocation)) << "\n\n";
    write_standard_error_details(out, invocation);
  }
  write_sequence_diagram(out, result);
  out << "\nReplay: " << code_span(replay_command(run) + " --filter " + shell_quote(result.name))
      << '\n';
}

}  // namespace

std::string shell_quote(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::strchr("_./:=@%+,-", c) != nullptr;
  });
  if (plain) return std::string(text);
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

void write_terminal_report(std::ostream& out, const RunSummary& run, bool colour) {
  out << "retryproof run: seed " << run.seed << ", client " << terminal_text(run.client) << '\n';
  for (const auto& result : run.results) {
    out << '\n';
    write_terminal_block(out, result, colour);
  }
  const bool all_met = count_met(run) == run.results.size();
  out << '\n' << paint(summary_line(run), all_met ? kGreen : kRed, colour) << '\n';
  out << "replay: " << terminal_text(replay_command(run)) << '\n';
  for (const auto& result : run.results) {
    if (result.met()) continue;
    out << "replay " << terminal_text(result.name) << ": "
        << terminal_text(replay_command(run) + " --filter " + shell_quote(result.name)) << '\n';
  }
}

nlohmann::json to_json(const RunSummary& run) {
  json scenarios = json::array();
  for (const auto& result : run.results)
    scenarios.push_back(scenario_json(result));
  const std::size_t met = count_met(run);
  return {{"seed", run.seed},
          {"client", valid_utf8(run.client)},
          {"summary",
           {{"scenarios", run.results.size()}, {"met", met}, {"notMet", run.results.size() - met}}},
          {"scenarios", std::move(scenarios)}};
}

void write_junit(std::ostream& out, const RunSummary& run) {
  std::vector<TestCase> cases;
  for (const auto& result : run.results) {
    for (const auto& verdict : result.verdicts)
      cases.push_back(verdict_case(result, verdict));
    cases.push_back(expectations_case(result));
  }
  std::size_t failures = 0;
  std::size_t skipped = 0;
  double seconds = 0;
  for (const auto& test : cases) {
    failures += test.kind == TestCase::Kind::failure ? 1 : 0;
    skipped += test.kind == TestCase::Kind::skipped ? 1 : 0;
    seconds += test.seconds;
  }
  const std::string counts = "tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
                             std::to_string(skipped) + "\" time=\"" + seconds_text(seconds) + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"retryproof\" " << counts << ">\n";
  out << "  <testsuite name=\"retryproof\" " << counts << ">\n";
  out << "    <properties>\n";
  out << "      <property name=\"seed\" value=\"" << run.seed << "\"/>\n";
  out << "      <property name=\"client\" value=\"" << xml_escape(run.client, true) << "\"/>\n";
  out << "      <property name=\"replay\" value=\"" << xml_escape(replay_command(run), true)
      << "\"/>\n";
  out << "    </properties>\n";
  for (const auto& test : cases)
    write_test_case(out, test);
  out << "  </testsuite>\n";
  out << "</testsuites>\n";
}

void write_markdown(std::ostream& out, const RunSummary& run) {
  out << "## retryproof: seed " << run.seed << ", client " << code_span(run.client) << "\n\n";
  out << summary_line(run) << ".\n\n";
  out << "| scenario | met | jobs | POSTs | outcome | failed verdicts |\n";
  out << "| --- | --- | ---: | ---: | --- | --- |\n";
  for (const auto& result : run.results) {
    out << "| " << markdown_text(result.name) << " | " << (result.met() ? "yes" : "**no**") << " | "
        << jobs_of(result).size() << " | " << count_posts(result) << " | " << outcomes_cell(result)
        << " | " << failed_verdicts_cell(result) << " |\n";
  }
  for (const auto& result : run.results) {
    if (!result.met()) write_markdown_details(out, run, result);
  }
  out << "\nReplay the run: " << code_span(replay_command(run)) << '\n';
}

}  // namespace retryproof::scenarios
