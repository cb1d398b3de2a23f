// The time scale: every report says how time ran, so that a CI artifact's reader knows.
#include <gtest/gtest.h>

#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

const std::string kProbeFollows =
    "time scale 10: the client follows the scaled clock (after two 503s it waited 345 ms of "
    "scenario time at scale 10, 275 ms at real time)";
const std::string kOverhead =
    "time scale 10: a retry that does not wait at all took up to 6 ms here; the scale guard "
    "allows 12 ms for one (10 at least, 2 times the longest measured)";
const std::string kScaleWhy =
    "a retry that does not wait at all may take 12 ms here, and above scale 5 it could measure "
    "the 60 ms its verdicts require between attempts";

// The hand-built run at --time-scale 10 for a client the probe found following it; C ran
// at scale 5, the largest its verdicts allowed.
RunSummary scaled_summary() {
  RunSummary run = summary();
  run.client = "cmd:python3 my_client.py";
  run.time_scale = {.asked = 10,
                    .used = 10,
                    .probe_finding = "follows",
                    .probe = kProbeFollows,
                    .overhead_allowed_ms = 12,
                    .overhead = kOverhead};
  for (auto& result : run.results)
    result.scale = 10;
  run.results[1].scale = 5;
  run.results[1].scale_why = kScaleWhy;
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

TEST(TimeScaleInReports, TerminalHeadingProbeBlockScaleLineAndReplay) {
  std::ostringstream out;
  write_terminal_report(out, scaled_summary(), Colour::off);
  const std::string text = out.str();
  EXPECT_TRUE(
      text.starts_with("retryproof run: seed 42, client cmd:python3 my_client.py, time "
                       "scale 10\n" +
                       kProbeFollows + "\n"))
      << text;
  EXPECT_TRUE(contains(text, "  ran at scale 5: " + kScaleWhy + "\n")) << text;
  EXPECT_EQ(occurrences(text, "ran at scale"), 1u) << text;
  EXPECT_TRUE(contains(text, "\n" + kOverhead + "\n")) << text;
  EXPECT_TRUE(has_line(text, {"time scale 10: 1 of 2 scenarios ran at a lower scale, the largest "
                              "at which their verdicts hold",
                              ". At 5, C-commit-then-drop: " + kScaleWhy}))
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
                                       {"retryOverhead", nullptr},
                                       {"lowered", json::array()}}));
  EXPECT_EQ(parsed["scenarios"][1]["scale"], 1);
  EXPECT_TRUE(parsed["scenarios"][1]["scaleWhy"].is_null());
}

TEST(TimeScaleInReports, JsonHasTheScaleTheProbeAndEachScenariosScale) {
  const json parsed = json::parse(to_json(scaled_summary()).dump());
  EXPECT_EQ(parsed["timeScale"],
            json({{"asked", 10},
                  {"used", 10},
                  {"clockProbe", {{"finding", "follows"}, {"text", kProbeFollows}}},
                  {"retryOverhead", {{"allowedMs", 12}, {"text", kOverhead}}},
                  {"lowered", {"C-commit-then-drop"}}}));
  EXPECT_EQ(parsed["scenarios"][0]["scale"], 10);
  EXPECT_TRUE(parsed["scenarios"][0]["scaleWhy"].is_null());
  EXPECT_EQ(parsed["scenarios"][1]["scale"], 5);
  EXPECT_EQ(parsed["scenarios"][1]["scaleWhy"], kScaleWhy);

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
  EXPECT_TRUE(contains(xml, "<property name=\"time-scale-lowered\" value=\"C-commit-then-drop\"/>"))
      << xml;
  EXPECT_TRUE(contains(xml, "<property name=\"retry-overhead\" value=\"" + kOverhead + "\"/>"))
      << xml;
  EXPECT_TRUE(contains(xml, "--time-scale 10\"/>")) << xml;  // the replay property
  EXPECT_TRUE(contains(test_case(xml, "C-commit-then-drop", "expectations"),
                       "ran at scale 5: a retry that does not wait at all"))
      << xml;
  EXPECT_FALSE(contains(test_case(xml, "A-fail-before-commit", "expectations"), "ran at scale"))
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
  EXPECT_TRUE(contains(text, "> " + kOverhead + "\n")) << text;
  EXPECT_TRUE(contains(text, "> time scale 10: 1 of 2 scenarios ran at a lower scale")) << text;
  EXPECT_TRUE(contains(text, "ran at scale 5: " + kScaleWhy)) << text;
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
