// The JSON report: the whole result model, round-tripped.
#include <gtest/gtest.h>

#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace report_fixture;

TEST(JsonReport, RoundTripsTheResultModel) {
  const json parsed = json::parse(to_json(summary()).dump());
  EXPECT_EQ(parsed["seed"], 42);
  EXPECT_EQ(parsed["client"], "reference");
  EXPECT_EQ(parsed["summary"], json({{"scenarios", 2},
                                     {"met", 1},
                                     {"notMet", 1},
                                     {"failed", 1},
                                     {"inconclusive", 0},
                                     {"inconclusiveAs", "not-met"},
                                     {"withHarm", 1}}));
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

}  // namespace
}  // namespace retryproof::scenarios
