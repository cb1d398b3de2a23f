// The fleet's load and the operator's numbers in the reports: a sparkline in the terminal, a
// Mermaid xychart in Markdown, the series in JSON, properties in JUnit; a merged journal's
// origins; and nothing new for a scenario of one client at a time without an outage.
#include <gtest/gtest.h>

#include "scenarios/reports/load_reports.hpp"
#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

// Three clients through an outage from 200 to 400 ms: two requests refused in it, one of
// them retried into a second job for its operation.
ScenarioResult fleet_scenario() {
  ScenarioResult result = met_scenario();
  result.name = "storm-three";
  result.concurrency = 3;
  result.outages = {{Millis(200), Millis(400)}};
  result.journal = {entry(1, 0, "k1", Outcome::new_operation, "none", 201, "job_1"),
                    entry(2, 250, "k2", Outcome::new_operation, "fail-before-commit", 503, {}),
                    entry(3, 260, "k3", Outcome::new_operation, "commit-then-drop", {}, "job_3"),
                    entry(4, 1000, "k3b", Outcome::new_operation, "none", 201, "job_4")};
  result.numbers = OperatorNumbers{.operations = 3, .succeeded = 2, .duplicated = 1};
  return result;
}

RunSummary with(ScenarioResult result) {
  return {.seed = 42, .client = "reference", .results = {std::move(result)}};
}

std::string terminal_of(const RunSummary& run) {
  std::ostringstream out;
  write_terminal_report(out, run, Colour::off);
  return out.str();
}
std::string markdown_of(const RunSummary& run) {
  std::ostringstream out;
  write_markdown(out, run);
  return out.str();
}
std::string junit_of(const RunSummary& run) {
  std::ostringstream out;
  write_junit(out, run);
  return out.str();
}

TEST(Rates, ReadToOneDecimalSoThatOneInAThousandShows) {
  EXPECT_EQ(reports::rate_text(1, 1000), "0.1%");
  EXPECT_EQ(reports::rate_text(9, 10), "90.0%");
  EXPECT_EQ(reports::rate_text(0, 0), "n/a");
  EXPECT_EQ(reports::numbers_text({.operations = 10, .succeeded = 9, .duplicated = 1}),
            "10 operations: 9 succeeded (90.0%), 1 duplicated (10.0%)");
}

TEST(LoadReport, TheTerminalShowsTheNumbersAndASparklineWithTheOutageMarked) {
  const std::string text = terminal_of(with(fleet_scenario()));
  EXPECT_TRUE(contains(text, "\n  3 operations: 2 succeeded (66.7%), 1 duplicated (33.3%)\n"))
      << text;
  EXPECT_TRUE(contains(text,
                       "\n  requests per 50 ms from +0ms, peak 2 (2 succeeded, 1 failed, 1 no "
                       "answer):\n"
                       "    │▄    █              ▄│\n"
                       "         ────  outage +200ms to +400ms\n"))
      << text;
}

TEST(LoadReport, MarkdownDrawsAnXyChartOfRequestsPerBucket) {
  const std::string text = markdown_of(with(fleet_scenario()));
  EXPECT_TRUE(contains(text,
                       "\n### storm-three: operations and load\n\n"
                       "3 operations: 2 succeeded (66.7%), 1 duplicated (33.3%).\n\n"))
      << text;
  EXPECT_TRUE(contains(text,
                       "```mermaid\nxychart-beta\n"
                       "    title \"Requests per 50 ms (* in an outage)\"\n"
                       "    x-axis \"ms\" [\"0\", \"50\", \"100\", \"150\", \"200*\", \"250*\", "
                       "\"300*\", \"350*\", \"400\", "))
      << text;
  EXPECT_TRUE(contains(text,
                       "    y-axis \"requests\" 0 --> 2\n"
                       "    bar [1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
                       "0, 1]\n"
                       "    line [0, 0, 0, 0, 0, 2, 0, "))
      << text;
  EXPECT_TRUE(contains(text,
                       "Bars: every request (2 succeeded, 1 failed, 1 no answer); line: "
                       "those that did not succeed. outage +200ms to +400ms.\n"))
      << text;
}

TEST(LoadReport, JsonCarriesTheSeriesAndTheRates) {
  const nlohmann::json json = to_json(with(fleet_scenario()));
  const auto& scenario = json.at("scenarios").at(0);
  const auto& load = scenario.at("load");
  EXPECT_EQ(load.at("bucketMs"), 50);
  EXPECT_EQ(load.at("startMs"), 0);
  EXPECT_EQ(load.at("peak"), 2);
  EXPECT_EQ(load.at("concurrency"), 3);
  EXPECT_EQ(load.at("outages"), nlohmann::json::parse(R"([{"fromMs": 200, "untilMs": 400}])"));
  ASSERT_EQ(load.at("buckets").size(), 21u);
  EXPECT_EQ(load.at("buckets").at(5),
            nlohmann::json::parse(R"({"startMs": 250, "requests": 2, "succeeded": 0,
                                      "failed": 1, "noAnswer": 1, "inOutage": true})"));
  EXPECT_EQ(load.at("buckets").at(8).at("inOutage"), false);
  const auto& operations = scenario.at("operations");
  EXPECT_EQ(operations.at("operations"), 3);
  EXPECT_EQ(operations.at("succeeded"), 2);
  EXPECT_EQ(operations.at("duplicated"), 1);
  EXPECT_DOUBLE_EQ(operations.at("successRate").get<double>(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(operations.at("duplicateRate").get<double>(), 1.0 / 3);
}

TEST(LoadReport, JunitCarriesTheNumbersAsAProperty) {
  const std::string xml = junit_of(with(fleet_scenario()));
  EXPECT_EQ(xml_problem(xml), "");
  EXPECT_TRUE(contains(xml,
                       "<property name=\"operations: storm-three\" value=\"3 operations: 2 "
                       "succeeded (66.7%), 1 duplicated (33.3%)\"/>"))
      << xml;
}

TEST(LoadReport, AFleetWithNoRequestsSaysSo) {
  ScenarioResult result = fleet_scenario();
  result.outages.clear();
  result.journal.clear();
  const std::string text = terminal_of(with(result));
  EXPECT_TRUE(contains(text, "\n  load: no requests reached the provider\n")) << text;
  EXPECT_TRUE(contains(markdown_of(with(result)), "No requests reached the provider.\n"));
}

// Traffic judged alone: the numbers, and no chart unless it is a fleet.
TEST(LoadReport, NumbersWithoutAFleetShowNoChart) {
  ScenarioResult result = met_scenario();
  result.numbers = OperatorNumbers{.operations = 1, .succeeded = 1};
  const std::string text = terminal_of(with(result));
  EXPECT_TRUE(contains(text, "\n  1 operation: 1 succeeded (100.0%), 0 duplicated (0.0%)\n"))
      << text;
  EXPECT_FALSE(contains(text, "requests per")) << text;
  const std::string markdown = markdown_of(with(result));
  EXPECT_TRUE(contains(markdown, "### A-fail-before-commit: operations\n")) << markdown;
  EXPECT_FALSE(contains(markdown, "xychart")) << markdown;
}

// A scenario of one client at a time, without an outage, reads as it did before fleets.
TEST(LoadReport, AScenarioThatIsNoFleetHasNoChartAndNoNumbers) {
  const RunSummary run = summary();
  const std::string text = terminal_of(run);
  EXPECT_FALSE(contains(text, "requests per")) << text;
  EXPECT_FALSE(contains(text, "operations:")) << text;
  EXPECT_FALSE(contains(text, "│")) << text;
  const std::string markdown = markdown_of(run);
  EXPECT_FALSE(contains(markdown, "xychart")) << markdown;
  EXPECT_FALSE(contains(markdown, "operations and load")) << markdown;
  for (const auto& scenario : to_json(run).at("scenarios")) {
    EXPECT_FALSE(scenario.contains("load"));
    EXPECT_FALSE(scenario.contains("operations"));
    EXPECT_FALSE(scenario.contains("origins"));
  }
  EXPECT_FALSE(contains(junit_of(run), "operations: "));
}

// Several journals merged: each seq can be followed back to its file.
TEST(LoadReport, AMergedJournalNamesEachEntrysOrigin) {
  ScenarioResult result = failing_scenario();
  result.journal_files = {"a.json", "b.json"};
  result.origins = {{2, 7}, {1, 3}};
  const std::string text = terminal_of(with(result));
  EXPECT_TRUE(has_line(text, {"seq", "at", "job", "from"})) << text;
  EXPECT_TRUE(has_line(text, {"*  1  ", "job_c1", "journal 2 seq 7"})) << text;
  EXPECT_TRUE(has_line(text, {"*  2  ", "job_c2", "journal 1 seq 3"})) << text;
  const std::string markdown = markdown_of(with(result));
  EXPECT_TRUE(contains(markdown, "(seq 1 is journal 2 seq 7, seq 2 is journal 1 seq 3)"))
      << markdown;
  const auto scenario = to_json(with(result)).at("scenarios").at(0);
  EXPECT_EQ(scenario.at("journalFiles"), nlohmann::json::parse(R"(["a.json", "b.json"])"));
  EXPECT_EQ(scenario.at("origins").at(0),
            nlohmann::json::parse(R"({"seq": 1, "journal": 2, "journalSeq": 7})"));
}

}  // namespace
}  // namespace retryproof::scenarios
