// Wording a reader trips over, in every report: nothing said twice, counts in the right number.
#include <gtest/gtest.h>

#include "scenarios/reports/matrix.hpp"
#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

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
  const MatrixReport report{
      .seed = 1,
      .rows = {{.client = "reference", .scenarios = 1},
               {.client = "mutant:blind-retry", .missed = {"commit-then-drop"}, .scenarios = 1}}};
  std::ostringstream matrix;
  write_mutant_matrix(matrix, report, Colour::off);
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

}  // namespace
}  // namespace retryproof::scenarios
