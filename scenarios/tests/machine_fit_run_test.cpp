// A run on a machine too small for a fleet of its client's processes: the client's cost is
// measured on the run's first scenario, the fleet after it is not run, and the report says
// so; an inconclusive run, never a pass. The machine is made small for real: the run is
// pinned to one core (taskset), and the client burns CPU before it starts (a shell loop, then
// the reference client).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {
namespace {

TEST(MachineFitRun, AFleetOneCoreCannotStartInTimeIsNotRunAndTheReportSaysWhy) {
  if (!std::filesystem::exists("/usr/bin/taskset"))
    GTEST_SKIP() << "taskset (util-linux) is not installed";
  const std::string dir = ::testing::TempDir();
  const std::string client = dir + "/heavy-client.sh";
  std::ofstream(client) << "i=0; while [ $i -lt 500000 ]; do i=$((i+1)); done\n"
                        << "exec " RETRYPROOF_BINARY " client\n";
  // The run takes its paths in order of name: the lone client first, measured.
  const std::string lone = dir + "/machine-fit-1.json";
  std::filesystem::copy_file(RETRYPROOF_CATALOG_DIR "/01-fail-before-commit.json", lone,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string fleet = dir + "/machine-fit-2.json";
  std::ofstream(fleet) << R"({"name": "heavy-fleet", "concurrency": 20,
    "generatedOperations": {"count": 20},
    "plan": {"outages": [{"from": "0ms", "for": "300ms", "fault": "fail-before-commit"}]},
    "expect": {"outcomes": ["failed", "unknown", "succeeded"]}})";
  ChildProcess run({"taskset", "-c", "0", RETRYPROOF_BINARY, "run", "--jobs", "1", lone, fleet,
                    "--client", "cmd:sh " + client, "--json", dir + "/heavy.json"});
  const auto status = run.wait(std::chrono::minutes(2));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->code, 3) << run.standard_output() << run.standard_error();
  const std::string report = run.standard_output();
  EXPECT_NE(report.find("not run on this machine: its 20 clients are a process each"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("of CPU on 1 core, so that a quarter of them"), std::string::npos)
      << report;

  const nlohmann::json json = nlohmann::json::parse(std::ifstream(dir + "/heavy.json"));
  const nlohmann::json& measured = json["scenarios"][0];
  EXPECT_EQ(measured["status"], "met");
  EXPECT_GT(measured["invocations"][0]["cpuMs"].get<int>(), 60) << "what the fleet's size needs";
  const nlohmann::json& fleet_result = json["scenarios"][1];
  EXPECT_EQ(fleet_result["status"], "inconclusive");
  EXPECT_TRUE(fleet_result["invocations"].empty());
  EXPECT_TRUE(fleet_result["journal"].empty()) << "nothing ran: no provider saw a request";
}

}  // namespace
}  // namespace retryproof::scenarios
