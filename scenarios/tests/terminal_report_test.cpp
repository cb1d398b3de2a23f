// The terminal report: what a person reads at the end of a run.
#include <gtest/gtest.h>

#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

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

// A run on another wire, judged by a declared policy, replays on that wire under that
// policy, and names what it skipped there.
TEST(TerminalReport, TheReplayCarriesTheApiAndThePolicyAndTheSkippedAreNamed) {
  RunSummary run = summary();
  run.api = "examples/square-node/shape.json";
  run.client_policy = "on-ambiguous=same-key-retry,attempts=3";
  run.skipped = {
      "lookup-unavailable on the square-payments API: its fault fails lookups, and "
      "the square-payments API has none"};
  std::ostringstream out;
  write_terminal_report(out, run, Colour::off);
  EXPECT_TRUE(contains(out.str(),
                       "replay: retryproof run --seed 42 --client reference --api "
                       "examples/square-node/shape.json --client-policy "
                       "on-ambiguous=same-key-retry,attempts=3\n"))
      << out.str();
  EXPECT_TRUE(contains(out.str(), "\nskipped lookup-unavailable on the square-payments API: "))
      << out.str();
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

}  // namespace
}  // namespace retryproof::scenarios
