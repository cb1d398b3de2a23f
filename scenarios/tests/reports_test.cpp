// The report writers on a run summary built by hand: one scenario that met its expectations,
// one that did not (a duplicate effect after a dropped response, and a client error).
#include "scenarios/reports/reports.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/reports/matrix.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

const std::string kAwkwardKey = "order<&\">42";

using provider::Delivery;
using provider::JournalEntry;
using provider::Outcome;

// A create as the provider journals it; no status and a drop when `status` is empty.
JournalEntry entry(std::uint64_t seq, std::int64_t at, const std::string& key, Outcome outcome,
                   const std::string& fault, std::optional<int> status,
                   std::optional<std::string> job) {
  return {.seq = seq,
          .at = Millis(at),
          .method = "POST",
          .path = "/jobs",
          .kind = provider::RequestKind::create,
          .key = key,
          .fingerprint = "sha256:ab",
          .outcome = outcome,
          .fault = provider::parse_fault(fault),
          .answered_at = Millis(at),
          .delivery = status ? Delivery::respond : Delivery::drop,
          .status = status,
          .job_id = std::move(job)};
}

provider::JobRecord job(const std::string& id, const std::string& key, const std::string& order) {
  return {id, key, {{"id", id}, {"orderId", order}}};
}

OutcomeLine outcome_line(const json& line) {
  return *outcome_line_of(line).line;
}

ScenarioResult met_scenario() {
  ScenarioResult result;
  result.name = "A-fail-before-commit";
  result.description = "a 503 before commit; the retry creates the job";
  result.file = "catalog/a.json";
  result.client = "reference";
  result.seed = 42;
  result.journal = {entry(1, 0, "k-a", Outcome::new_operation, "fail-before-commit", 503, {}),
                    entry(2, 120, "k-a", Outcome::new_operation, "none", 201, "job_a1")};
  result.jobs = {job("job_a1", "k-a", "order-1")};
  InvocationResult invocation;
  invocation.operation = "fulfillment:order-1";
  invocation.payload = {{"orderId", "order-1"}};
  invocation.first_seq = 1;
  invocation.last_seq = 2;
  invocation.ended_at = Millis(130);
  invocation.outcome = outcome_line({{"outcome", "succeeded"}, {"jobId", "job_a1"}});
  invocation.exit = "exit code 0";
  result.invocations.push_back(invocation);
  result.verdicts = {
      {.id = "no-duplicate-effect", .status = VerdictStatus::pass, .explanation = "one job"},
      {.id = "key-stability", .status = VerdictStatus::pass, .explanation = "one key"},
      {.id = "backoff", .status = VerdictStatus::pass, .explanation = "gaps of 120ms"},
      {.id = "crash-recovery",
       .status = VerdictStatus::not_applicable,
       .explanation = "no crash in this scenario"},
  };
  return result;
}

std::string standard_error_lines() {
  std::string text;
  for (int i = 1; i <= 25; ++i) {
    text += "err-" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "\n";
  }
  return text + "\x1b[2Jscreen wiped\n";  // a client's escape sequence must not reach the report
}

ScenarioResult failing_scenario() {
  ScenarioResult result;
  result.name = "C-commit-then-drop";
  result.description = "the job is committed, the response dropped";
  result.file = "catalog/c.json";
  result.client = "mutant:blind-retry";
  result.seed = 43;
  result.journal = {
      entry(1, 5, kAwkwardKey, Outcome::new_operation, "commit-then-drop", {}, "job_c1"),
      entry(2, 260, kAwkwardKey + "-2", Outcome::new_operation, "none", 201, "job_c2")};
  result.jobs = {job("job_c1", kAwkwardKey, "order-42"),
                 job("job_c2", kAwkwardKey + "-2", "order-42")};
  InvocationResult first;
  first.operation = "fulfillment:order-42";
  first.payload = {{"orderId", "order-42"}};
  first.first_seq = 1;
  first.last_seq = 2;
  first.started_at = Millis(0);
  first.ended_at = Millis(1500);
  first.client_error = "no outcome line on standard output (exit code 1)";  // as the runner says it
  first.exit = "exit code 1";
  first.standard_error = standard_error_lines();
  InvocationResult second = first;
  second.index = 1;
  second.first_seq = 3;
  second.last_seq = 2;
  second.client_error.clear();
  second.standard_error.clear();
  second.killed = true;
  second.exit = "killed by SIGKILL";
  result.invocations = {first, second};
  result.verdicts = {
      {.id = "no-duplicate-effect",
       .status = VerdictStatus::fail,
       .explanation = "operation fulfillment:order-42 made 2 jobs: job_c1, job_c2",
       .evidence = {1, 2},
       .severity = Severity::harm},
      {.id = "key-stability",
       .status = VerdictStatus::fail,
       .explanation = "operation fulfillment:order-42 used 2 keys",
       .evidence = {1, 2}},
      {.id = "payload-stability", .status = VerdictStatus::pass, .explanation = "no 422"},
      {.id = "crash-recovery",
       .status = VerdictStatus::not_applicable,
       .explanation = "no crash in this scenario"},
      {.id = "client-error",
       .status = VerdictStatus::fail,
       .explanation = "invocation 1: no outcome line on standard output",
       .severity = Severity::harm},
  };
  result.expected_violations = {"key-stability", "payload-stability"};
  result.unmet = {
      {"no-duplicate-effect: operation fulfillment:order-42 made 2 jobs: job_c1, job_c2",
       Severity::harm, "no-duplicate-effect"},
      {"verdict payload-stability passed; the scenario expects it to fail", Severity::harm},
      {"expected 1 job, the provider holds 2", Severity::harm}};
  return result;
}

RunSummary summary() {
  return {.seed = 42, .client = "reference", .results = {met_scenario(), failing_scenario()}};
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::size_t occurrences(const std::string& text, std::string_view part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

// Whether one line of `text` holds all `parts`, each starting after the one before.
bool has_line(const std::string& text, const std::vector<std::string>& parts) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::size_t at = 0;
    bool all = true;
    for (const auto& part : parts) {
      at = line.find(part, at);
      if (at == std::string::npos) {
        all = false;
        break;
      }
      ++at;  // the next part may share the spaces around this one
    }
    if (all) return true;
  }
  return false;
}

std::string terminal(Colour colour) {
  std::ostringstream out;
  write_terminal_report(out, summary(), colour);
  return out.str();
}

// ---------------------------------------------------------------------------------------------
// A small XML 1.0 well-formedness check: balanced elements, quoted attributes, known entities,
// no raw < or & in text, no forbidden control characters, one root.

bool valid_reference(std::string_view text, std::size_t& at) {
  const auto end = text.find(';', at);
  if (end == std::string_view::npos) return false;
  const std::string_view name = text.substr(at + 1, end - at - 1);
  at = end + 1;
  if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos")
    return true;
  if (name.size() < 2 || name[0] != '#') return false;
  const bool hex = name[1] == 'x';
  const std::string_view digits = name.substr(hex ? 2 : 1);
  if (digits.empty()) return false;
  for (const char c : digits) {
    if (hex ? std::isxdigit(static_cast<unsigned char>(c)) == 0
            : std::isdigit(static_cast<unsigned char>(c)) == 0) {
      return false;
    }
  }
  return true;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

// Empty when well-formed, else what is wrong.
std::string xml_problem(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') return "a forbidden control character";
  }
  std::size_t at = 0;
  if (text.starts_with("<?xml")) {
    at = text.find("?>");
    if (at == std::string_view::npos) return "an unterminated declaration";
    at += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '&') {
      if (!valid_reference(text, at)) return "a bad reference in text";
      continue;
    }
    if (c != '<') {
      if (open.empty() && std::isspace(static_cast<unsigned char>(c)) == 0) {
        return "text outside the root";
      }
      ++at;
      continue;
    }
    const bool closing = at + 1 < text.size() && text[at + 1] == '/';
    at += closing ? 2 : 1;
    const std::size_t name_start = at;
    while (at < text.size() && is_name_char(text[at]))
      ++at;
    const std::string name(text.substr(name_start, at - name_start));
    if (name.empty()) return "a tag without a name";
    if (closing) {
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
      if (at >= text.size() || text[at] != '>') return "a bad closing tag";
      ++at;
      continue;
    }
    // attributes
    while (true) {
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])) != 0)
        ++at;
      if (at >= text.size()) return "an unterminated tag";
      if (text[at] == '>' || text[at] == '/') break;
      const std::size_t attribute_start = at;
      while (at < text.size() && is_name_char(text[at]))
        ++at;
      if (at == attribute_start || at + 1 >= text.size() || text[at] != '=' ||
          text[at + 1] != '"') {
        return "a bad attribute in <" + name + ">";
      }
      at += 2;
      while (at < text.size() && text[at] != '"') {
        if (text[at] == '<') return "a raw < in an attribute";
        if (text[at] == '&') {
          if (!valid_reference(text, at)) return "a bad reference in an attribute";
        } else {
          ++at;
        }
      }
      if (at >= text.size()) return "an unterminated attribute";
      ++at;
    }
    if (open.empty()) ++roots;
    if (text[at] == '/') {
      if (at + 1 >= text.size() || text[at + 1] != '>') return "a bad empty tag";
      at += 2;
    } else {
      open.push_back(name);
      ++at;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots != 1) return "not exactly one root";
  return {};
}

// The attribute `name` of the first element whose start tag begins with `tag_start`.
std::string attribute(const std::string& xml, const std::string& tag_start,
                      const std::string& name) {
  const auto tag = xml.find(tag_start);
  if (tag == std::string::npos) return "<no such tag>";
  const auto tag_end = xml.find('>', tag);
  const auto at = xml.find(" " + name + "=\"", tag);
  if (at == std::string::npos || at > tag_end) return "<no such attribute>";
  const auto value = at + name.size() + 3;
  return xml.substr(value, xml.find('"', value) - value);
}

// The text of the <testcase> element for one scenario and verdict.
std::string test_case(const std::string& xml, const std::string& scenario,
                      const std::string& name) {
  const auto at = xml.find("<testcase classname=\"" + scenario + "\" name=\"" + name + "\"");
  if (at == std::string::npos) return {};
  const auto self_closed = xml.find("/>", at);
  const auto tag_end = xml.find('>', at);
  if (self_closed != std::string::npos && self_closed + 1 == tag_end) {
    return xml.substr(at, tag_end + 1 - at);
  }
  const auto end = xml.find("</testcase>", at);
  return xml.substr(at, end + 11 - at);
}

std::string junit() {
  std::ostringstream out;
  write_junit(out, summary());
  return out.str();
}

std::string markdown() {
  std::ostringstream out;
  write_markdown(out, summary());
  return out.str();
}

// ---------------------------------------------------------------------------------------------

TEST(TerminalReport, NamesTheRunAndEachScenario) {
  const std::string text = terminal(Colour::off);
  EXPECT_TRUE(text.starts_with("retryproof run: seed 42, client reference\n")) << text;
  EXPECT_TRUE(contains(text, "PASS  A-fail-before-commit")) << text;
  EXPECT_TRUE(contains(text, "FAIL (harm)  C-commit-then-drop")) << text;
  EXPECT_TRUE(contains(text, "jobs 1, POSTs 2")) << text;
  EXPECT_TRUE(contains(text, "jobs 2, POSTs 2")) << text;
  EXPECT_TRUE(contains(text, "succeeded jobId=job_a1")) << text;
  EXPECT_TRUE(contains(text, "client error: no outcome line on standard output (exit code 1)"))
      << text;
  EXPECT_TRUE(contains(text, "killed by SIGKILL")) << text;
}

TEST(TerminalReport, ShowsTheVerdictsWithExplanationsForFailAndNotApplicable) {
  const std::string text = terminal(Colour::off);
  EXPECT_TRUE(has_line(text, {"    no-duplicate-effect  ", "  FAIL harm  ",
                              "  operation fulfillment:order-42 made 2 jobs: job_c1, job_c2 "
                              "(seq 1, 2)"}))
      << text;
  EXPECT_TRUE(has_line(text, {"    key-stability  ", "  fail (expected)  ", "used 2 keys"}))
      << text;
  EXPECT_TRUE(has_line(text, {"    payload-stability  ", "  pass, expected to fail  ", "no 422"}))
      << text;
  EXPECT_TRUE(has_line(text, {"    crash-recovery  ", "  n/a  ", "no crash in this scenario"}))
      << text;
  EXPECT_TRUE(has_line(text, {"    backoff  ", "  pass"})) << text;
  // A passing verdict's explanation is left out.
  EXPECT_FALSE(contains(text, "gaps of 120ms")) << text;
  EXPECT_TRUE(contains(text, "expectations not met:\n    - [harm] no-duplicate-effect: operation"))
      << text;
}

TEST(TerminalReport, ShowsTheTimelineAndStandardErrorOfAFailingScenarioOnly) {
  const std::string text = terminal(Colour::off);
  EXPECT_EQ(occurrences(text, "timeline ("), 1u) << text;
  EXPECT_TRUE(
      has_line(text, {"seq", "at", "method", "path", "key", "outcome", "fault", "response", "job"}))
      << text;
  EXPECT_TRUE(has_line(text, {"*  1  ", "  +5ms  ", "  POST  ", "  /jobs  ", "  order<&\\\">42  ",
                              "  new  ", "  commit-then-drop  ", "  no response  ", "  job_c1"}))
      << text;
  EXPECT_TRUE(has_line(text, {"*  2  ", "  +260ms  ", "  POST  ", "  /jobs  ",
                              "  order<&\\\">42-2  ", "  new  ", "  -  ", "  201  ", "  job_c2"}))
      << text;
  // The scenario that met its expectations shows no timeline.
  EXPECT_FALSE(has_line(text, {"job_a1", "201"})) << text;
  EXPECT_TRUE(contains(text,
                       "standard error of invocation 1 (fulfillment:order-42), last 20 of 26 "
                       "lines:"))
      << text;
  EXPECT_TRUE(contains(text, "    | err-07\n")) << text;
  EXPECT_TRUE(contains(text, "    | err-25\n")) << text;
  EXPECT_TRUE(contains(text, "    | [2Jscreen wiped\n")) << text;
  EXPECT_FALSE(contains(text, "err-06")) << text;
}

// Two keys that are not UTF-8 were both U+FFFD, so they read as one key; escaped
// (docs/provider.md, *Keys as bytes*), each report tells them apart.
TEST(TerminalReport, ShowsKeysThatAreNotUtf8DistinctlyEscaped) {
  ScenarioResult result = failing_scenario();
  result.journal[0].key = "k\xFF";
  result.journal[1].key = "k\xFE";
  RunSummary run{.seed = 1, .client = "reference", .results = {result}};
  std::ostringstream text;
  write_terminal_report(text, run, Colour::off);
  EXPECT_TRUE(has_line(text.str(), {"*  1  ", "  k\\xFF  "})) << text.str();
  EXPECT_TRUE(has_line(text.str(), {"*  2  ", "  k\\xFE  "})) << text.str();
  EXPECT_FALSE(contains(text.str(), "\xEF\xBF\xBD")) << text.str();

  std::ostringstream xml;
  write_junit(xml, run);
  EXPECT_TRUE(contains(xml.str(), "POST /jobs key=k\\xFF new")) << xml.str();
  EXPECT_TRUE(contains(xml.str(), "POST /jobs key=k\\xFE new")) << xml.str();

  const json parsed = json::parse(to_json(run).dump());
  const auto journal = provider::journal_from_json(parsed["scenarios"][0]["journal"]);
  EXPECT_EQ(journal[0].key, "k\xFF");
  EXPECT_EQ(journal[1].key, "k\xFE");
}

TEST(TerminalReport, EndsWithTheSummaryAndTheReplayCommands) {
  const std::string text = terminal(Colour::off);
  EXPECT_TRUE(contains(
      text, "\n2 scenarios: 1 met its expectations, 1 did not (1 with harm, 0 policy only)\n"))
      << text;
  EXPECT_TRUE(contains(text, "replay: retryproof run --seed 42 --client reference\n")) << text;
  EXPECT_TRUE(contains(text,
                       "retryproof run --seed 42 --client reference --filter "
                       "C-commit-then-drop\n"))
      << text;
  EXPECT_FALSE(contains(text, "--filter A-fail-before-commit")) << text;
}

TEST(TerminalReport, QuotesAClientCommandForTheShell) {
  RunSummary run{.seed = 7, .client = "cmd:python3 it's.py", .results = {failing_scenario()}};
  std::ostringstream out;
  write_terminal_report(out, run, Colour::off);
  EXPECT_TRUE(contains(out.str(), "retryproof run --seed 7 --client 'cmd:python3 it'\\''s.py'"))
      << out.str();
}

TEST(TerminalReport, ColoursOnlyWhenAskedTo) {
  const std::string plain = terminal(Colour::off);
  EXPECT_FALSE(contains(plain, "\x1b")) << plain;
  const std::string coloured = terminal(Colour::on);
  EXPECT_TRUE(contains(coloured, "\x1b[32mPASS\x1b[0m")) << coloured;
  EXPECT_TRUE(contains(coloured, "\x1b[31mFAIL (harm)\x1b[0m")) << coloured;
  EXPECT_FALSE(contains(coloured, "\x1b[2J")) << coloured;
}

TEST(TerminalReport, IsPlainAsciiForAsciiInput) {
  for (const char c : terminal(Colour::on)) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_TRUE(byte < 0x80 && (byte >= 0x20 || c == '\n' || c == '\x1b')) << int{byte};
  }
}

TEST(JsonReport, RoundTripsTheResultModel) {
  const json parsed = json::parse(to_json(summary()).dump());
  EXPECT_EQ(parsed["seed"], 42);
  EXPECT_EQ(parsed["client"], "reference");
  EXPECT_EQ(parsed["summary"],
            json({{"scenarios", 2}, {"met", 1}, {"notMet", 1}, {"withHarm", 1}}));
  ASSERT_EQ(parsed["scenarios"].size(), 2u);
  const json& met = parsed["scenarios"][0];
  EXPECT_EQ(met["name"], "A-fail-before-commit");
  EXPECT_EQ(met["file"], "catalog/a.json");
  EXPECT_EQ(met["met"], true);
  EXPECT_EQ(met["posts"], 2);
  EXPECT_EQ(met["verdicts"][3]["status"], "n/a");
  const json& failing = parsed["scenarios"][1];
  EXPECT_EQ(failing["met"], false);
  EXPECT_EQ(failing["client"], "mutant:blind-retry");
  EXPECT_EQ(failing["seed"], 43);
  EXPECT_EQ(failing["unmet"].size(), 3u);
  EXPECT_EQ(failing["expectedViolations"], json({"key-stability", "payload-stability"}));
  EXPECT_EQ(failing["verdicts"][0],
            json({{"id", "no-duplicate-effect"},
                  {"status", "fail"},
                  {"explanation", "operation fulfillment:order-42 made 2 jobs: job_c1, job_c2"},
                  {"evidence", {1, 2}},
                  {"severity", "harm"}}));
  const json& invocation = failing["invocations"][0];
  EXPECT_EQ(invocation["index"], 0);
  EXPECT_EQ(invocation["operation"], "fulfillment:order-42");
  EXPECT_EQ(invocation["payload"], json({{"orderId", "order-42"}}));
  EXPECT_EQ(invocation["killed"], false);
  EXPECT_TRUE(invocation["outcome"].is_null());
  EXPECT_EQ(invocation["clientError"], "no outcome line on standard output (exit code 1)");
  EXPECT_EQ(invocation["exit"], "exit code 1");
  EXPECT_EQ(invocation["standardError"], standard_error_lines());
  EXPECT_EQ(invocation["firstSeq"], 1);
  EXPECT_EQ(invocation["lastSeq"], 2);
  EXPECT_EQ(failing["invocations"][1]["killed"], true);
  EXPECT_EQ(provider::journal_from_json(failing["journal"]), failing_scenario().journal);
  EXPECT_EQ(provider::jobs_from_json(failing["jobs"]), failing_scenario().jobs);
}

TEST(JsonReport, KeepsA64BitSeedAndMakesBadUtf8Dumpable) {
  ScenarioResult result = failing_scenario();
  result.invocations[0].standard_error = "bad \xff\xfe bytes";
  RunSummary run{.seed = 18446744073709551615u, .client = "reference", .results = {result}};
  const json parsed = json::parse(to_json(run).dump());
  EXPECT_EQ(parsed["version"], RETRYPROOF_VERSION);  // which retryproof wrote it
  EXPECT_EQ(parsed["seed"].get<std::uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(parsed["scenarios"][0]["invocations"][0]["standardError"],
            "bad \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

TEST(JunitReport, IsWellFormed) {
  const std::string xml = junit();
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites")) << xml;
  EXPECT_EQ(occurrences(xml, "<testsuite "), 1u);
  EXPECT_EQ(occurrences(xml, "<testcase "), 11u);
}

TEST(JunitReport, CountsMatchTheTestCases) {
  const std::string xml = junit();
  // 4 + 5 verdicts and 2 expectation cases; failures: no-duplicate-effect, payload-stability
  // (expected to fail, passed), client-error and C's expectations; skipped: the two n/a.
  EXPECT_EQ(attribute(xml, "<testsuite ", "name"), "retryproof: reference");
  EXPECT_EQ(attribute(xml, "<testsuite ", "tests"), "11");
  EXPECT_EQ(attribute(xml, "<testsuite ", "failures"), "4");
  EXPECT_EQ(attribute(xml, "<testsuite ", "skipped"), "2");
  EXPECT_EQ(attribute(xml, "<testsuites", "tests"), "11");
  EXPECT_EQ(occurrences(xml, "<failure "), 4u);
  EXPECT_EQ(occurrences(xml, "<skipped "), 2u);
  EXPECT_EQ(attribute(xml, "<property name=\"seed\"", "value"), "42");
}

TEST(JunitReport, JudgesVerdictsAgainstTheExpectedViolations) {
  const std::string xml = junit();
  const std::string duplicate = test_case(xml, "C-commit-then-drop", "no-duplicate-effect");
  EXPECT_TRUE(contains(duplicate,
                       "<failure message=\"operation fulfillment:order-42 made 2 jobs: "
                       "job_c1, job_c2\" type=\"harm\">evidence: seq 1, 2\n"))
      << duplicate;
  EXPECT_TRUE(contains(duplicate,
                       "* #1 +5ms POST /jobs key=order&lt;&amp;\\&quot;&gt;42 new "
                       "fault=commit-then-drop -&gt; no response job=job_c1\n"))
      << duplicate;

  const std::string expected = test_case(xml, "C-commit-then-drop", "key-stability");
  EXPECT_FALSE(contains(expected, "<failure")) << expected;
  EXPECT_TRUE(contains(expected, "<system-out>failed, as the scenario expects")) << expected;

  const std::string missed = test_case(xml, "C-commit-then-drop", "payload-stability");
  EXPECT_TRUE(contains(missed,
                       "<failure message=\"the scenario expects this verdict to fail; it "
                       "passed: no 422\""))
      << missed;

  EXPECT_EQ(test_case(xml, "A-fail-before-commit", "crash-recovery"),
            "<testcase classname=\"A-fail-before-commit\" name=\"crash-recovery\">\n"
            "      <skipped message=\"no crash in this scenario\"/>\n    </testcase>");
  EXPECT_FALSE(contains(test_case(xml, "A-fail-before-commit", "expectations"), "<failure"));
  const std::string unmet = test_case(xml, "C-commit-then-drop", "expectations");
  EXPECT_TRUE(contains(unmet,
                       "<failure message=\"[harm] no-duplicate-effect: operation "
                       "fulfillment:order-42 made 2 jobs: job_c1, job_c2; [harm] verdict "
                       "payload-stability"))
      << unmet;
  EXPECT_TRUE(contains(unmet, "time=\"1.500\"")) << unmet;
  EXPECT_TRUE(contains(unmet, "<system-err>standard error of invocation 1")) << unmet;
}

TEST(JunitReport, EscapesSpecialAndStripsForbiddenCharacters) {
  const std::string xml = junit();
  EXPECT_TRUE(contains(xml, "order&lt;&amp;\\&quot;&gt;42")) << xml;
  EXPECT_FALSE(contains(xml, kAwkwardKey)) << xml;
  EXPECT_FALSE(contains(xml, "\x1b")) << xml;
  EXPECT_TRUE(contains(xml, "[2Jscreen wiped")) << xml;

  ScenarioResult result = met_scenario();
  result.name = "it's <a> \"name\" & \x01\x02 more";
  result.verdicts[3].explanation = "line one\nline two\x0b";
  RunSummary run{.seed = 1, .client = "cmd:a&b", .results = {result}};
  std::ostringstream out;
  write_junit(out, run);
  EXPECT_EQ(xml_problem(out.str()), "") << out.str();
  EXPECT_TRUE(contains(out.str(), "classname=\"it&apos;s &lt;a&gt; &quot;name&quot; &amp;  more\""))
      << out.str();
  EXPECT_TRUE(contains(out.str(), "<skipped message=\"line one&#10;line two\"/>")) << out.str();
  EXPECT_TRUE(contains(out.str(), "value=\"cmd:a&amp;b\"")) << out.str();
}

TEST(MarkdownReport, HasTheHeadingAndTheScenarioTable) {
  const std::string text = markdown();
  EXPECT_TRUE(text.starts_with("## retryproof: seed 42, client `reference`\n")) << text;
  EXPECT_TRUE(contains(text, "| scenario | met | jobs | POSTs | outcome | failed verdicts |\n"))
      << text;
  EXPECT_TRUE(contains(text,
                       "| A-fail-before-commit | yes | 1 | 2 | succeeded jobId=job\\_a1 | "
                       "none |\n"))
      << text;
  EXPECT_TRUE(
      contains(text,
               "| C-commit-then-drop | **no** | 2 | 2 | client error: no outcome "
               "line on standard output (exit code 1); killed by SIGKILL | "
               "no-duplicate-effect (harm), key-stability (expected), client-error (harm) |\n"))
      << text;
}

TEST(MarkdownReport, DetailsOnlyTheScenarioThatMissedItsExpectations) {
  const std::string text = markdown();
  EXPECT_FALSE(contains(text, "### A-fail-before-commit")) << text;
  EXPECT_TRUE(contains(text, "### C-commit-then-drop: expectations not met\n")) << text;
  EXPECT_TRUE(contains(text, "- harm: expected 1 job, the provider holds 2\n")) << text;
  EXPECT_TRUE(contains(text,
                       "- **no-duplicate-effect** (harm): operation fulfillment:order-42 made 2 "
                       "jobs: job\\_c1, job\\_c2 (evidence: seq 1, 2)\n"))
      << text;
  EXPECT_TRUE(contains(text, "--filter C-commit-then-drop`")) << text;
  EXPECT_TRUE(contains(text,
                       "<details><summary>standard error of invocation 1, last 20 of 26 "
                       "lines</summary>\n\n```text\nerr-07\n"))
      << text;
  EXPECT_TRUE(contains(text, "err-25\n[2Jscreen wiped\n```\n\n</details>\n")) << text;
  EXPECT_FALSE(contains(text, "err-06")) << text;
}

TEST(MarkdownReport, DrawsTheAttemptsAsAMermaidSequenceDiagram) {
  const std::string text = markdown();
  const auto start = text.find("```mermaid\nsequenceDiagram\n");
  ASSERT_NE(start, std::string::npos) << text;
  const auto end = text.find("```\n", start + 10);
  ASSERT_NE(end, std::string::npos) << text;
  const std::string diagram = text.substr(start, end - start);
  EXPECT_TRUE(contains(diagram, "    participant Client\n    participant Provider\n")) << diagram;
  EXPECT_TRUE(contains(diagram,
                       "    Client->>Provider: POST /jobs key=order#lt;&\\\"#gt;42\n"
                       "    Note over Provider: fault commit-then-drop\n"
                       "    Provider--xClient: dropped (commit-then-drop)\n"))
      << diagram;
  EXPECT_TRUE(contains(diagram, "    Provider-->>Client: 201 job_c2\n")) << diagram;
  EXPECT_EQ(occurrences(diagram, "Client->>Provider"), 2u) << diagram;
  EXPECT_EQ(occurrences(text, "```mermaid"), 1u) << text;
}

TEST(MarkdownReport, EscapesWhatTablesAndMermaidChokeOn) {
  ScenarioResult result = failing_scenario();
  result.name = "pipe | hash # semi; \nnewline";
  result.journal[0].key = "k|1;#x\ny";
  RunSummary run{.seed = 1, .client = "cmd:a | b", .results = {result}};
  std::ostringstream out;
  write_markdown(out, run);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "| pipe \\| hash \\# semi;  newline | **no** |")) << text;
  EXPECT_TRUE(contains(text, "Client->>Provider: POST /jobs key=k#124;1#59;#35;x\\x0Ay\n")) << text;
  EXPECT_TRUE(contains(text, "client `cmd:a \\| b`")) << text;
}

// ---------------------------------------------------------------------------------------------
// Wording a reader trips over: nothing said twice, counts in the right number.

TEST(ReportWording, AClientErrorSaysHowTheClientEndedOnce) {
  const std::string text = terminal(Colour::off);
  EXPECT_EQ(occurrences(text, "(exit code 1)"), 1u) << text;
  EXPECT_FALSE(contains(text, "(exit code 1) (exit code 1)")) << text;
  EXPECT_EQ(occurrences(markdown(), "(exit code 1)"), 2u)  // the table and the invocation line
      << markdown();
  EXPECT_FALSE(contains(markdown(), "(exit code 1) (exit code 1)")) << markdown();
}

TEST(ReportWording, EvidenceAnExplanationAlreadyNamesIsNotRepeated) {
  ScenarioResult result = failing_scenario();
  result.verdicts[0].explanation =
      "POST /jobs with key K was re-sent (seq 2) after a dropped connection (seq 1)";
  result.verdicts[1].explanation =
      "operation fulfillment:order-42 used 2 keys, the second at seq 2";
  RunSummary run{.seed = 1, .client = "reference", .results = {result}};
  std::ostringstream terminal_out;
  write_terminal_report(terminal_out, run, Colour::off);
  std::ostringstream markdown_out;
  write_markdown(markdown_out, run);
  for (const std::string& text : {terminal_out.str(), markdown_out.str()}) {
    EXPECT_FALSE(contains(text, "(seq 1) (seq 1, 2)")) << text;
    EXPECT_FALSE(contains(text, "(seq 1)  (seq")) << text;
    EXPECT_TRUE(contains(text, "after a dropped connection (seq 1)\n")) << text;
    EXPECT_TRUE(contains(text, "the second at seq 2 (")) << text;  // seq 1 is still cited
  }
  EXPECT_TRUE(contains(terminal_out.str(), "the second at seq 2 (seq 1)\n")) << terminal_out.str();
  EXPECT_TRUE(contains(markdown_out.str(), "the second at seq 2 (evidence: seq 1)\n"))
      << markdown_out.str();
}

TEST(ReportWording, OneScenarioIsSingular) {
  RunSummary run{.seed = 1, .client = "reference", .results = {met_scenario()}};
  std::ostringstream out;
  write_terminal_report(out, run, Colour::off);
  EXPECT_TRUE(contains(out.str(), "\n1 scenario: 1 met its expectations, 0 did not\n"))
      << out.str();
  std::ostringstream markdown_out;
  write_markdown(markdown_out, run);
  EXPECT_TRUE(contains(markdown_out.str(), "1 scenario: 1 met its expectations"))
      << markdown_out.str();

  // The mutant matrix over a one-scenario catalog (run --mutants --filter ...).
  const std::vector<MatrixRow> rows = {
      {.client = "reference", .scenarios = 1},
      {.client = "mutant:blind-retry", .missed = {"commit-then-drop"}, .scenarios = 1}};
  std::ostringstream matrix;
  write_mutant_matrix(matrix, 1, rows, Colour::off);
  EXPECT_TRUE(contains(matrix.str(), "caught (1/1 scenario)\n")) << matrix.str();
}

TEST(ReportWording, MarkdownListsEachFailedVerdictOnce) {
  const std::string text = markdown();
  EXPECT_EQ(occurrences(text, "made 2 jobs"), 1u) << text;
  EXPECT_EQ(occurrences(text, "invocation 1: no outcome line"), 1u) << text;
  // What is not a failed verdict is still listed as an unmet expectation.
  EXPECT_TRUE(contains(text, "Unmet expectations:\n\n- harm: verdict payload-stability passed"))
      << text;
}

TEST(JunitReport, TimesEachCaseAndNamesTheSuiteAfterTheClient) {
  const std::string xml = junit();
  // A verdict: the span of the requests it cites (seq 1 at 5 ms to seq 2 at 260 ms).
  EXPECT_TRUE(
      contains(test_case(xml, "C-commit-then-drop", "no-duplicate-effect"), "time=\"0.255\""))
      << xml;
  // The expectations: the scenario's run (A: 0 to 130 ms; C: 0 to 1500 ms).
  EXPECT_TRUE(contains(test_case(xml, "A-fail-before-commit", "expectations"), "time=\"0.130\""))
      << xml;
  EXPECT_EQ(attribute(xml, "<testsuite ", "time"), "1.630");
  EXPECT_EQ(attribute(xml, "<testsuites", "time"), "1.630");

  RunSummary run = summary();
  run.client = "cmd:python3 my_client.py";
  std::ostringstream out;
  write_junit(out, run);
  EXPECT_EQ(attribute(out.str(), "<testsuite ", "name"), "retryproof: cmd:python3 my_client.py");
}

// --- the time scale: every report says how time ran, so a CI artifact's reader knows ---

const std::string kProbeFollows =
    "time scale 10: the client follows the scaled clock (after two 503s it waited 345 ms of "
    "scenario time at scale 10, 275 ms at real time)";
const std::string kGuardWhy =
    "seq 2 came 82 ms after the previous attempt ended, which needs 50 ms; at scale 10 a retry "
    "that does not wait at all may measure 100 ms";

// The hand-built run at --time-scale 10 for a client the probe found following it; the
// scale guard judged C at real time instead.
RunSummary scaled_summary() {
  RunSummary run = summary();
  run.client = "cmd:python3 my_client.py";
  run.time_scale = {.asked = 10, .used = 10, .probe_finding = "follows", .probe = kProbeFollows};
  run.results[1].judged_at_real_time = kGuardWhy;
  return run;
}

// The same for a client the probe found on the real clock: the whole run judged at real time.
RunSummary probed_to_real_time() {
  RunSummary run = summary();
  run.client = "cmd:./static-client";
  run.time_scale = {.asked = 10,
                    .used = 1,
                    .probe_finding = "ignores",
                    .probe = "time scale 10: the client does not follow the scaled clock: ..."};
  return run;
}

TEST(TimeScaleInReports, TerminalHeadingProbeBlockGuardLineAndReplay) {
  std::ostringstream out;
  write_terminal_report(out, scaled_summary(), Colour::off);
  const std::string text = out.str();
  EXPECT_TRUE(
      text.starts_with("retryproof run: seed 42, client cmd:python3 my_client.py, time "
                       "scale 10\n" +
                       kProbeFollows + "\n"))
      << text;
  EXPECT_TRUE(
      contains(text, "  judged at real time instead of the time scale: " + kGuardWhy + "\n"))
      << text;
  EXPECT_EQ(occurrences(text, "judged at real time instead of the time scale"), 1u) << text;
  EXPECT_TRUE(has_line(text, {"time scale 10: 1 of 2 scenarios judged at real time instead",
                              "(C-commit-then-drop; C-commit-then-drop: " + kGuardWhy + ")"}))
      << text;
  EXPECT_TRUE(contains(text,
                       "replay: retryproof run --seed 42 --client 'cmd:python3 "
                       "my_client.py' --time-scale 10\n"))
      << text;
  EXPECT_TRUE(contains(text,
                       "replay C-commit-then-drop: retryproof run --seed 42 --client "
                       "'cmd:python3 my_client.py' --time-scale 10 --filter "
                       "C-commit-then-drop\n"))
      << text;
}

TEST(TimeScaleInReports, TerminalSaysAProbedClientWasJudgedAtRealTime) {
  std::ostringstream out;
  write_terminal_report(out, probed_to_real_time(), Colour::off);
  EXPECT_TRUE(
      out.str().starts_with("retryproof run: seed 42, client cmd:./static-client, time "
                            "scale 10 asked, judged at real time\n"
                            "time scale 10: the client does not follow the scaled clock"))
      << out.str();
  // It was asked for 10: the replay asks for 10 too, and the probe settles it the same way.
  EXPECT_TRUE(contains(out.str(), "--time-scale 10\n")) << out.str();
}

TEST(TimeScaleInReports, RealTimeReportsSayNothingOfIt) {
  std::ostringstream terminal_out;
  write_terminal_report(terminal_out, summary(), Colour::off);
  std::ostringstream junit_out;
  write_junit(junit_out, summary());
  std::ostringstream markdown_out;
  write_markdown(markdown_out, summary());
  for (const std::string& text : {terminal_out.str(), junit_out.str(), markdown_out.str()}) {
    EXPECT_FALSE(contains(text, "time scale")) << text;
    EXPECT_FALSE(contains(text, "time-scale")) << text;
  }
  const json parsed = to_json(summary());
  EXPECT_EQ(parsed["timeScale"], json({{"asked", 1},
                                       {"used", 1},
                                       {"clockProbe", nullptr},
                                       {"judgedAtRealTime", json::array()}}));
  EXPECT_TRUE(parsed["scenarios"][1]["judgedAtRealTime"].is_null());
}

TEST(TimeScaleInReports, JsonHasTheScaleTheProbeAndTheScenariosJudgedAtRealTime) {
  const json parsed = json::parse(to_json(scaled_summary()).dump());
  EXPECT_EQ(parsed["timeScale"],
            json({{"asked", 10},
                  {"used", 10},
                  {"clockProbe", {{"finding", "follows"}, {"text", kProbeFollows}}},
                  {"judgedAtRealTime", {"C-commit-then-drop"}}}));
  EXPECT_TRUE(parsed["scenarios"][0]["judgedAtRealTime"].is_null());
  EXPECT_EQ(parsed["scenarios"][1]["judgedAtRealTime"], kGuardWhy);

  const json real_time = to_json(probed_to_real_time());
  EXPECT_EQ(real_time["timeScale"]["asked"], 10);
  EXPECT_EQ(real_time["timeScale"]["used"], 1);
  EXPECT_EQ(real_time["timeScale"]["clockProbe"]["finding"], "ignores");
}

TEST(TimeScaleInReports, JunitHasPropertiesAndTheScenariosNote) {
  std::ostringstream out;
  write_junit(out, scaled_summary());
  const std::string xml = out.str();
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(contains(xml, "<property name=\"time-scale\" value=\"10\"/>")) << xml;
  EXPECT_TRUE(contains(xml, "<property name=\"time-scale-used\" value=\"10\"/>")) << xml;
  EXPECT_TRUE(contains(xml,
                       "<property name=\"clock-probe\" value=\"time scale 10: the client "
                       "follows the scaled clock"))
      << xml;
  EXPECT_TRUE(
      contains(xml, "<property name=\"judged-at-real-time\" value=\"C-commit-then-drop\"/>"))
      << xml;
  EXPECT_TRUE(contains(xml, "--time-scale 10\"/>")) << xml;  // the replay property
  EXPECT_TRUE(contains(test_case(xml, "C-commit-then-drop", "expectations"),
                       "judged at real time instead of the time scale: seq 2 came 82 ms"))
      << xml;
  EXPECT_FALSE(contains(test_case(xml, "A-fail-before-commit", "expectations"), "real time"))
      << xml;

  std::ostringstream probed;
  write_junit(probed, probed_to_real_time());
  EXPECT_TRUE(contains(probed.str(), "<property name=\"time-scale-used\" value=\"1\"/>"))
      << probed.str();
}

TEST(TimeScaleInReports, MarkdownHeadingNotesAndDetails) {
  std::ostringstream out;
  write_markdown(out, scaled_summary());
  const std::string text = out.str();
  EXPECT_TRUE(text.starts_with(
      "## retryproof: seed 42, client `cmd:python3 my_client.py`, time scale 10\n"))
      << text;
  EXPECT_TRUE(contains(text, "> time scale 10: the client follows the scaled clock")) << text;
  EXPECT_TRUE(contains(text, "> time scale 10: 1 of 2 scenarios judged at real time instead"))
      << text;
  EXPECT_TRUE(contains(text, "judged at real time instead of the time scale: seq 2 came 82 ms"))
      << text;
  EXPECT_TRUE(contains(text, "--time-scale 10 --filter C-commit-then-drop`")) << text;

  std::ostringstream probed;
  write_markdown(probed, probed_to_real_time());
  EXPECT_TRUE(
      probed.str().starts_with("## retryproof: seed 42, client `cmd:./static-client`, "
                               "time scale 10 asked, judged at real time\n"))
      << probed.str();
}

}  // namespace
}  // namespace retryproof::scenarios
