// The mutant matrix as CI reads it (run --mutants --json/--junit/--markdown): the seed, the
// time scale and the replay in every format, the scenarios that ran at a lower scale named
// per client, and in JUnit a red test case exactly where the matrix does not hold.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "scenarios/reports/matrix.hpp"
#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

const std::string kReplay = "retryproof run --mutants --seed 3 --time-scale 10";

// The reference client clean, one mutant caught (in one of two scenarios, by key-stability,
// one of them at a lower scale), one missed: the matrix does not hold.
MatrixReport scaled_matrix() {
  return {.seed = 3,
          .time_scale = {.asked = 10, .used = 10},
          .replay = kReplay,
          .rows = {{.client = "reference", .scenarios = 2},
                   {.client = "mutant:fresh-key-per-attempt",
                    .flagged = {{"key-stability", 1}},
                    .missed = {"commit-then-drop"},
                    .scenarios = 2,
                    .lowered = {"chaos-storm"},
                    .scale_summary = "time scale 10: 1 of 2 scenarios ran at a lower scale"},
                   {.client = "mutant:no-backoff", .scenarios = 2}}};
}

template <typename Write>
std::string written(Write write, const MatrixReport& matrix) {
  std::ostringstream out;
  write(out, matrix);
  return out.str();
}

std::string terminal_matrix(const MatrixReport& matrix) {
  std::ostringstream out;
  write_mutant_matrix(out, matrix, Colour::off);
  return out.str();
}

TEST(MatrixReport, TerminalSaysTheScaleTheLoweredScenariosAndTheReplay) {
  const std::string text = terminal_matrix(scaled_matrix());
  EXPECT_TRUE(contains(text, "mutant matrix (seed 3, time scale 10): ")) << text;
  EXPECT_TRUE(contains(text,
                       "mutant:fresh-key-per-attempt: time scale 10: 1 of 2 scenarios "
                       "ran at a lower scale\n"))
      << text;
  EXPECT_TRUE(has_line(text, {"mutant:no-backoff", "MISSED"})) << text;
  EXPECT_TRUE(contains(text, "the matrix does NOT hold")) << text;
  EXPECT_TRUE(contains(text, "replay: " + kReplay + "\n")) << text;
}

TEST(MatrixReport, AtRealTimeTheHeadingHasNoScale) {
  MatrixReport matrix = scaled_matrix();
  matrix.time_scale = {};
  matrix.rows[1].scale_summary.clear();
  const std::string text = terminal_matrix(matrix);
  EXPECT_TRUE(contains(text, "mutant matrix (seed 3): ")) << text;
  EXPECT_FALSE(contains(text, "time scale")) << text;
}

TEST(MatrixReport, JsonHasEachClientsResultAndTheScale) {
  const json document = to_json(scaled_matrix());
  EXPECT_EQ(document["seed"], 3);
  EXPECT_EQ(document["timeScale"]["asked"], 10);
  EXPECT_EQ(document["timeScale"]["used"], 10);
  EXPECT_EQ(document["replay"], kReplay);
  EXPECT_EQ(document["holds"], false);
  const json& clients = document["clients"];
  ASSERT_EQ(clients.size(), 3u);
  EXPECT_EQ(clients[0]["result"], "clean");
  EXPECT_EQ(clients[1]["result"], "caught");
  EXPECT_EQ(clients[1]["flagged"], json({{"key-stability", 1}}));
  EXPECT_EQ(clients[1]["notMet"], json({"commit-then-drop"}));
  EXPECT_EQ(clients[1]["lowered"], json({"chaos-storm"}));
  EXPECT_EQ(clients[2]["result"], "missed");
}

TEST(MatrixReport, JsonOfAFlaggedReferenceDoesNotHold) {
  MatrixReport matrix = scaled_matrix();
  matrix.rows[0].missed = {"rerun"};
  matrix.rows.pop_back();  // every mutant caught: the reference alone breaks it
  const json document = to_json(matrix);
  EXPECT_EQ(document["clients"][0]["result"], "flagged");
  EXPECT_EQ(document["holds"], false);
  matrix.rows[0].missed.clear();
  EXPECT_EQ(to_json(matrix)["holds"], true);
}

TEST(MatrixReport, JunitFailsExactlyTheRowsThatBreakTheMatrix) {
  const std::string xml = written(write_mutant_matrix_junit, scaled_matrix());
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(
      contains(xml, R"(<testsuite name="retryproof: mutant matrix" tests="3" failures="1")"))
      << xml;
  EXPECT_TRUE(contains(xml, R"(<testcase classname="mutant-matrix" name="reference"/>)")) << xml;
  EXPECT_TRUE(
      contains(xml, R"(<testcase classname="mutant-matrix" name="mutant:fresh-key-per-attempt"/>)"))
      << xml;
  EXPECT_TRUE(contains(xml,
                       "<failure message=\"no scenario caught this mutant: every one of its 2 "
                       "scenarios met its expectations\"/>"))
      << xml;
  EXPECT_TRUE(contains(xml, R"(<property name="time-scale" value="10"/>)")) << xml;
  EXPECT_TRUE(contains(xml, R"(<property name="replay" value=")" + kReplay + "\"/>")) << xml;
}

TEST(MatrixReport, JunitOfAFlaggedReferenceNamesTheScenarios) {
  MatrixReport matrix = scaled_matrix();
  matrix.rows[0].missed = {"rerun", "crash-and-restart"};
  const std::string xml = written(write_mutant_matrix_junit, matrix);
  EXPECT_EQ(xml_problem(xml), "") << xml;
  EXPECT_TRUE(contains(xml,
                       "the reference client missed the expectations of: rerun, "
                       "crash-and-restart"))
      << xml;
  EXPECT_TRUE(contains(xml, R"(failures="2")")) << xml;
}

TEST(MatrixReport, MarkdownHasTheHeadingTheNotesAndTheReplay) {
  const std::string text = written(write_mutant_matrix_markdown, scaled_matrix());
  EXPECT_TRUE(contains(text, "## retryproof mutant matrix (seed 3, time scale 10)\n")) << text;
  EXPECT_TRUE(contains(text,
                       "> mutant:fresh-key-per-attempt: time scale 10: 1 of 2 scenarios "
                       "ran at a lower scale\n"))
      << text;
  EXPECT_TRUE(has_line(text, {"| mutant:no-backoff |", "MISSED |"})) << text;
  EXPECT_TRUE(contains(text, "Replay: `" + kReplay + "`")) << text;
}

}  // namespace
}  // namespace retryproof::scenarios
