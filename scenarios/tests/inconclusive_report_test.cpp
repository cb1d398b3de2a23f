// The third answer in every output: a scenario the run could not judge is never counted as
// met, reads as inconclusive with what it lacked, and sets the exit status apart from a
// failure (3, or as --inconclusive decides).
#include <gtest/gtest.h>

#include <sstream>

#include "scenarios/model/expectations.hpp"
#include "scenarios/reports/exit_status.hpp"
#include "scenarios/reports/matrix.hpp"
#include "scenarios/reports/view.hpp"
#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

constexpr const char* kNeverFired =
    "commit-then-drop was planned for orderId=order-999 and fired 0 times in 1 create";

// The met fixture, but the run could not tell whether its planned fault ever fired, and its
// backoff verdict lacked the entries it needed.
ScenarioResult undecided_scenario() {
  ScenarioResult result = met_scenario();
  result.name = "B-never-fired";
  result.verdicts[2] = {.id = "backoff",
                        .status = VerdictStatus::inconclusive,
                        .explanation = "seq 3 is missing from the journal",
                        .evidence = {3}};
  result.inconclusive = {{kNeverFired, ""}};
  for (Inconclusive& reason : inconclusive_verdicts(result))
    result.inconclusive.push_back(std::move(reason));
  return result;
}

RunSummary undecided_summary(InconclusiveAs as = InconclusiveAs::not_met) {
  return {.seed = 7,
          .client = "reference",
          .results = {met_scenario(), undecided_scenario()},
          .inconclusive_as = as};
}

TEST(Inconclusive, AScenarioThatCouldNotTellIsNeitherMetNorFailed) {
  const ScenarioResult result = undecided_scenario();
  EXPECT_EQ(result.status(), ScenarioStatus::inconclusive);
  EXPECT_FALSE(result.met());
  EXPECT_FALSE(result.fails_at(Severity::policy));
  ScenarioResult failed = result;
  failed.unmet = {{"the provider holds 2 jobs; expected 1", Severity::harm}};
  EXPECT_EQ(failed.status(), ScenarioStatus::failed) << "a proven failure wins";
}

TEST(Inconclusive, AnInconclusiveVerdictIsNotAnUnmetExpectationEvenWhenExpectedToFail) {
  ScenarioResult result = undecided_scenario();
  result.expected_violations = {"backoff"};
  const Scenario scenario{.name = result.name};
  EXPECT_TRUE(unmet_expectations(scenario, result).empty());
  const auto reasons = inconclusive_verdicts(result);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0].verdict, "backoff");
  EXPECT_EQ(reasons[0].text,
            "backoff was expected to flag this client, but could not be judged: seq 3 is "
            "missing from the journal");
}

TEST(Inconclusive, ExitStatusIsThreeWhenNothingFailedAndCIMayCountItEitherWay) {
  const std::vector<ScenarioResult> met = {met_scenario()};
  const std::vector<ScenarioResult> undecided = {met_scenario(), undecided_scenario()};
  const std::vector<ScenarioResult> failing = {undecided_scenario(), failing_scenario()};
  EXPECT_EQ(exit_status(met, Severity::policy, InconclusiveAs::not_met), kExitMet);
  EXPECT_EQ(exit_status(undecided, Severity::policy, InconclusiveAs::not_met), kExitInconclusive);
  EXPECT_EQ(exit_status(undecided, Severity::policy, InconclusiveAs::pass), kExitMet);
  EXPECT_EQ(exit_status(undecided, Severity::policy, InconclusiveAs::fail), kExitFailed);
  EXPECT_EQ(exit_status(failing, Severity::policy, InconclusiveAs::pass), kExitFailed)
      << "a failure wins over anything that could not be judged";
  // Policy misses let pass by --fail-on harm do not hide what could not be judged.
  ScenarioResult policy_only = undecided_scenario();
  policy_only.unmet = {{"backoff: a retry after 3 ms", Severity::policy, "backoff"}};
  EXPECT_EQ(exit_status({policy_only}, Severity::harm, InconclusiveAs::not_met), kExitInconclusive);
  EXPECT_THROW(parse_inconclusive_as("maybe"), std::invalid_argument);
  EXPECT_EQ(parse_inconclusive_as("pass"), InconclusiveAs::pass);
}

TEST(Inconclusive, TheTerminalReportSaysWhatWasMissingAndCountsItApart) {
  std::ostringstream out;
  write_terminal_report(out, undecided_summary(), Colour::off);
  const std::string text = out.str();
  EXPECT_TRUE(has_line(text, {"INCONCLUSIVE", "B-never-fired"})) << text;
  EXPECT_TRUE(has_line(text, {"backoff", "inconclusive", "seq 3 is missing"})) << text;
  EXPECT_TRUE(contains(text, "could not tell (inconclusive, not counted as met):")) << text;
  EXPECT_TRUE(has_line(text, {"- ", kNeverFired})) << text;
  EXPECT_TRUE(contains(text, "2 scenarios: 1 met its expectations, 0 did not, 1 inconclusive"))
      << text;
  EXPECT_TRUE(has_line(text, {"inconclusive: B-never-fired"})) << text;
}

TEST(Inconclusive, TheJsonReportCarriesTheStatusAndTheReasons) {
  const nlohmann::json report = to_json(undecided_summary());
  EXPECT_EQ(report["summary"]["met"], 1);
  EXPECT_EQ(report["summary"]["failed"], 0);
  EXPECT_EQ(report["summary"]["inconclusive"], 1);
  EXPECT_EQ(report["summary"]["notMet"], 1) << "inconclusive is not met";
  const nlohmann::json& scenario = report["scenarios"][1];
  EXPECT_EQ(scenario["status"], "inconclusive");
  EXPECT_EQ(scenario["met"], false);
  EXPECT_EQ(scenario["inconclusiveVerdicts"], nlohmann::json::array({"backoff"}));
  EXPECT_EQ(scenario["inconclusive"][0]["reason"], kNeverFired);
  EXPECT_TRUE(scenario["inconclusive"][0]["verdict"].is_null());
  const nlohmann::json& backoff = scenario["verdicts"][2];
  EXPECT_EQ(backoff["status"], "inconclusive");
  EXPECT_EQ(backoff["reason"], "seq 3 is missing from the journal");
  EXPECT_EQ(report["scenarios"][0]["status"], "met");
}

TEST(Inconclusive, JUnitShowsItAsAnErrorUnlessCIDecidedOtherwise) {
  std::ostringstream not_met;
  write_junit(not_met, undecided_summary());
  EXPECT_TRUE(contains(not_met.str(), "<error message=\"inconclusive: seq 3 is missing"))
      << not_met.str();
  EXPECT_TRUE(contains(not_met.str(), "type=\"inconclusive\""));
  EXPECT_TRUE(contains(not_met.str(), "errors=\"2\"")) << "the verdict and the expectations";
  EXPECT_TRUE(contains(not_met.str(), "failures=\"0\""));

  std::ostringstream counted_failed;
  write_junit(counted_failed, undecided_summary(InconclusiveAs::fail));
  EXPECT_TRUE(contains(counted_failed.str(), "failures=\"2\""));
  EXPECT_TRUE(contains(counted_failed.str(), "errors=\"0\""));

  std::ostringstream counted_passed;
  write_junit(counted_passed, undecided_summary(InconclusiveAs::pass));
  EXPECT_TRUE(contains(counted_passed.str(), "counted as passed: --inconclusive pass"));
  EXPECT_TRUE(contains(counted_passed.str(), "errors=\"0\" skipped=\""));
}

TEST(Inconclusive, MarkdownMarksTheScenarioAndDetailsWhatItLacked) {
  std::ostringstream out;
  write_markdown(out, undecided_summary());
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "| B-never-fired | *inconclusive* |")) << text;
  EXPECT_TRUE(contains(text, "### B-never-fired: inconclusive")) << text;
  EXPECT_TRUE(contains(text, "Could not tell (inconclusive, not counted as met):")) << text;
}

TEST(Inconclusive, TheMutantMatrixNeedsTheReferenceJudgedWholeAndMutantsCaughtByAFailure) {
  const MatrixRow clean = matrix_row("reference", {met_scenario()});
  const MatrixRow reference_undecided = matrix_row("reference", {undecided_scenario()});
  const MatrixRow caught = matrix_row("mutant:blind-retry", {failing_scenario()});
  const MatrixRow not_caught_undecided = matrix_row("mutant:no-backoff", {undecided_scenario()});
  const MatrixRow missed = matrix_row("mutant:no-backoff", {met_scenario()});
  EXPECT_EQ(matrix_exit_status({clean, caught}), kExitMet);
  EXPECT_EQ(matrix_exit_status({reference_undecided, caught}), kExitInconclusive);
  EXPECT_EQ(matrix_exit_status({clean, not_caught_undecided}), kExitInconclusive)
      << "a mutant nothing caught, where something could not be judged, is not shown missed";
  EXPECT_EQ(matrix_exit_status({clean, missed}), kExitFailed);
  EXPECT_EQ(matrix_exit_status({matrix_row("reference", {failing_scenario()}), caught}),
            kExitFailed);
  const nlohmann::json json = to_json(MatrixReport{.rows = {reference_undecided, caught}});
  EXPECT_EQ(json["clients"][0]["result"], "inconclusive");
  EXPECT_EQ(json["exitStatus"], kExitInconclusive);
}

}  // namespace
}  // namespace retryproof::scenarios
