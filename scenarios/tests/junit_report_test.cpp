// The JUnit report: well-formed XML with counts, times and verdicts a CI viewer reads.
#include <gtest/gtest.h>

#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

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

}  // namespace
}  // namespace retryproof::scenarios
