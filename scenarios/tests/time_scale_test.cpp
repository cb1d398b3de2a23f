// --time-scale: the same verdicts at scale 1 and at scale 10, scenario by scenario, for the
// reference client, every mutant and the example clients in Python and JavaScript; and the
// clock probe, which keeps a client on the real clock from being judged at the scale.
//
// CI time: the whole catalog for the reference client and the Python example (the issue's
// goal is stated over the whole catalog), and for the mutants and the Node example the
// scenarios whose verdicts depend on time, each mutant caught by one of them (see
// kScenarios), at both scales. The scale-1 half is most of the cost.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/temp_dir.hpp"
#include "scenarios/driver/scale_guard.hpp"
#include "scenarios/process/child_process.hpp"
#include "scenarios/process/clock_probe.hpp"
#include "scenarios/process/scaled_client.hpp"
#include "scenarios/tests/catalog_runs.hpp"

namespace retryproof::scenarios {
namespace {

using std::chrono::minutes;
using Finding = ClockProbe::Finding;

using catalog_runs::kBinary;
using catalog_runs::kCatalog;

// Every catalog scenario whose verdicts rest on time, which together catch every mutant.
const std::vector<std::string> kScenarios = {
    "01-fail-before-commit.json",  // a backoff after a 503: no-backoff, payload-drift
    "03-commit-then-drop.json",    // a lookup after a drop: blind-retry, fresh-key,
                                   // timeout-is-failure
    "04-payload-change.json",      // a 422: retries-4xx
    "09-delay-past-timeout.json",  // an answer held past the client's timeout
    "10-rate-limited.json",        // Retry-After: ignores-retry-after
    "11-in-flight.json",           // a key held in flight, 409s and lookups against a hold
    "15-crash-and-restart.json",   // a kill during a hold: memory-only-intent
    "16-budget-spent.json",  // a spent budget: unbounded, nested-retry-new-key (with a 3 s limit)
    "23-key-expired-rerun.json",  // the provider's clock moved forward: a key expires
};

bool installed(const std::string& program) {
  ChildProcess probe({"/bin/sh", "-c", "command -v " + program});
  const auto status = probe.wait(std::chrono::seconds(10));
  return status && status->exited() && status->code == 0;
}

struct Report {
  int exit_code = -1;
  std::string output;                 // standard output, then standard error
  std::map<std::string, int> scales;  // scenario name -> the scale it ran at
  int allowed_overhead_ms = 0;        // what the run allowed a no-wait retry (scaled runs)
  std::vector<long> first_at_ms;      // each scenario's first journal entry's atMs
  // Scenario name -> "verdict-id status" for each verdict, in the report's order.
  std::map<std::string, std::vector<std::string>> verdicts;
};

// `retryproof run` over kScenarios (or the whole catalog, or `only` these files) with the
// JSON report, as a user runs it.
Report run_at(int scale, const std::string& client, const std::string& policy, bool whole_catalog,
              const std::vector<std::filesystem::path>& only = {}) {
  TempDir dir("retryproof-time-scale");
  const std::string report = (dir.path() / "report.json").string();
  std::vector<std::string> argv = {kBinary,    "run",  "--jobs",       "2",
                                   "--client", client, "--time-scale", std::to_string(scale),
                                   "--json",   report};
  if (!policy.empty()) argv.insert(argv.end(), {"--client-policy", policy});
  if (whole_catalog) argv.push_back(kCatalog.string());
  for (const auto& file : only)
    argv.push_back(file.string());
  for (const auto& file :
       whole_catalog || !only.empty() ? std::vector<std::string>{} : kScenarios) {
    if (file != "16-budget-spent.json") {
      argv.push_back((kCatalog / file).string());
      continue;
    }
    // The unbounded mutant retries until the time limit: 3 s rather than 20 at real time.
    std::ifstream original(kCatalog / file);
    auto scenario = nlohmann::json::parse(original);
    scenario["timeLimit"] = "3s";
    argv.push_back(dir.write(file, scenario.dump()).string());
  }
  ChildProcess child(argv);
  const auto status = child.wait(minutes(10));
  Report run{status ? status->code : -1, child.standard_output() + child.standard_error(), {}};
  std::ifstream in(report);
  const auto parsed = nlohmann::json::parse(in, nullptr, false);
  if (!parsed.is_object()) return run;
  if (parsed["timeScale"]["retryOverhead"].is_object())
    run.allowed_overhead_ms = parsed["timeScale"]["retryOverhead"]["allowedMs"].get<int>();
  for (const auto& result : parsed["scenarios"]) {
    run.scales[result["name"].get<std::string>()] = result["scale"].get<int>();
    if (!result["journal"].empty()) run.first_at_ms.push_back(result["journal"][0]["atMs"]);
    auto& verdicts = run.verdicts[result["name"].get<std::string>()];
    for (const auto& verdict : result["verdicts"]) {
      verdicts.push_back(verdict["id"].get<std::string>() + " " +
                         verdict["status"].get<std::string>());
    }
  }
  return run;
}

struct Client {
  std::string name;            // for the test's name
  std::string choice;          // --client
  std::string policy;          // --client-policy
  std::string needs;           // an interpreter that must be installed, or empty
  bool whole_catalog = false;  // every scenario of the catalog, not only kScenarios
};

std::vector<Client> clients() {
  std::vector<Client> all = {{"reference", "reference", "", "", true}};
  for (const client::Mutant mutant : client::all_mutants()) {
    all.push_back({client::to_string(mutant), "mutant:" + client::to_string(mutant), "", ""});
  }
  all.push_back(
      {"python", "cmd:python3 " EXAMPLES_DIR "/python/correct_client.py", "", "python3", true});
  all.push_back(
      {"node", "cmd:node " EXAMPLES_DIR "/node/correct_client.mjs", "follows-settings", "node"});
  return all;
}

// How gtest and ctest name a client: by its --client, not its bytes.
void PrintTo(const Client& client, std::ostream* out) {
  *out << client.choice;
}

class SameVerdictsAtScale1And10 : public ::testing::TestWithParam<Client> {};

TEST_P(SameVerdictsAtScale1And10, ScenarioByScenario) {
  const Client& client = GetParam();
  if (!client.needs.empty() && !installed(client.needs)) GTEST_SKIP() << client.needs << " missing";
  if (client.choice.starts_with("cmd:") && !find_libfaketime()) GTEST_SKIP() << "no libfaketime";

  const Report real_time = run_at(1, client.choice, client.policy, client.whole_catalog);
  const Report scaled = run_at(10, client.choice, client.policy, client.whole_catalog);
  const std::size_t scenarios =
      client.whole_catalog ? load_catalog({kCatalog}).size() : kScenarios.size();
  ASSERT_EQ(real_time.verdicts.size(), scenarios) << real_time.output;
  ASSERT_EQ(scaled.verdicts.size(), scenarios) << scaled.output;
  EXPECT_EQ(scaled.exit_code, real_time.exit_code) << scaled.output;
  for (const auto& [scenario, verdicts] : real_time.verdicts) {
    EXPECT_EQ(scaled.verdicts.at(scenario), verdicts) << scenario << " at scale 10:\n"
                                                      << scaled.output << "\nat scale 1:\n"
                                                      << real_time.output;
  }
  // An external client is judged at the scale when the clock probe finds it following it
  // and doing the same there; on a busy machine its own work may not fit the scaled
  // timeouts (Node's first fetch), and it is judged at real time. Say which.
  if (client.choice.starts_with("cmd:")) {
    const auto probe = scaled.output.find("time scale 10: ");
    ASSERT_NE(probe, std::string::npos) << scaled.output;
    std::cout << scaled.output.substr(probe, scaled.output.find('\n', probe) - probe) << '\n';
  }
}

// gtest names: letters and digits only.
std::string test_name(const ::testing::TestParamInfo<Client>& param) {
  std::string name = param.param.name;
  std::erase(name, '-');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Clients, SameVerdictsAtScale1And10, ::testing::ValuesIn(clients()),
                         test_name);

// A fleet at the scale: the ten-client storm through its 5 s outage (scenarios/storm/) has the
// verdicts it has at real time, run at scale 4 (its 200 ms floor leaves room for it). Its outage is
// a window of scenario time from the fleet's first request; from the provider's start, the clients'
// processes, starting at four times their real length, ran out most of it (and all of it at 10)
// before their first request, and the fleet verdicts found no outage to judge.
TEST(FleetAtScale, TheTenClientStormHasTheSameVerdictsAtScale4) {
  const std::vector<std::filesystem::path> storm = {kCatalog.parent_path() / "storm" /
                                                    "01-ten-clients-outage.json"};
  const Report real_time = run_at(1, "reference", "", false, storm);
  const Report scaled = run_at(4, "reference", "", false, storm);
  ASSERT_EQ(real_time.verdicts.size(), 1u) << real_time.output;
  ASSERT_EQ(scaled.verdicts.size(), 1u) << scaled.output;
  EXPECT_EQ(real_time.exit_code, 0) << real_time.output;
  EXPECT_EQ(scaled.exit_code, 0) << scaled.output;
  // It ran at the scale chosen for its 200 ms floor (baseDelay 400ms) and ten clients sharing
  // this machine's cores: 4 on two cores, unless the machine is busy enough to allow more
  // than 10 ms for a retry that does not wait at all.
  const ChosenScale chosen = scale_for(JudgedPolicy{.min_backoff = Millis(200)}, TimeScale(4),
                                       Millis(scaled.allowed_overhead_ms),
                                       clients_per_core(10, std::thread::hardware_concurrency()));
  EXPECT_EQ(scaled.scales.begin()->second, chosen.scale.factor()) << scaled.output;
  // Scenario time starts with the fleet's first request, whatever its processes' start took.
  EXPECT_EQ(scaled.first_at_ms, std::vector<long>{0}) << scaled.output;
  const auto& verdicts = real_time.verdicts.begin()->second;
  EXPECT_NE(std::find(verdicts.begin(), verdicts.end(), "load-amplification pass"), verdicts.end())
      << "the fleet met no outage at real time:\n"
      << real_time.output;
  EXPECT_EQ(scaled.verdicts.begin()->second, verdicts) << "at scale 4:\n"
                                                       << scaled.output << "\nat scale 1:\n"
                                                       << real_time.output;
}

TEST(ClockProbe, JudgesByHowMuchLongerTheClientWaitedAtTheScale) {
  const TimeScale ten(10);
  EXPECT_EQ(judge_clock(Millis(150), Millis(180), ten), Finding::follows);
  EXPECT_EQ(judge_clock(Millis(150), Millis(100), ten), Finding::follows);  // jitter
  EXPECT_EQ(judge_clock(Millis(150), Millis(1500), ten), Finding::ignores);
  EXPECT_EQ(judge_clock(Millis(150), Millis(475), ten), Finding::ignores);  // sqrt(10) times
  // A client that did not retry, or did not wait, shows nothing of its clock.
  EXPECT_EQ(judge_clock(std::nullopt, Millis(150), ten), Finding::unknown);
  EXPECT_EQ(judge_clock(Millis(150), std::nullopt, ten), Finding::unknown);
  EXPECT_EQ(judge_clock(Millis(3), Millis(30), ten), Finding::unknown);
}

TEST(ClockProbe, AClientTooSlowForTheScaleAskedRunsAtTheLargestWhereItDoesTheSame) {
  const ClockProbe at_10{.finding = Finding::behaves_differently,
                         .scale = TimeScale(10),
                         .waited_at_real_time = Millis(300),
                         .waited_at_scale = Millis(310),
                         .did_at_real_time = "POST 503, POST 503, POST 201, succeeded",
                         .did_at_scale = "POST 503, GET 404, failed"};
  const ClockProbe at_5{.finding = Finding::follows,
                        .scale = TimeScale(5),
                        .waited_at_real_time = Millis(300),
                        .waited_at_scale = Millis(320)};
  const SettledScale settled{
      .asked = TimeScale(10), .used = TimeScale(5), .probe = at_5, .too_fast = {at_10}};
  EXPECT_EQ(settled.probe_text(),
            "time scale 10: the client does other things at the scale than at real time (POST "
            "503, GET 404, failed; at real time POST 503, POST 503, POST 201, succeeded): its "
            "own work between requests does not fit its timeouts divided by 10; at scale 5, the "
            "client follows the scaled clock (after two 503s it waited 320 ms of scenario time "
            "at scale 5, 300 ms at real time), so it runs at scale 5");
}

// The reference client as an external program: dynamically linked, so libfaketime scales
// its clock; with LD_PRELOAD removed it runs on the real clock, as a statically linked
// program would.
const std::string kUnderFaketime = "cmd:" + kBinary + " client";
const std::string kEscapingFaketime = "cmd:env -u LD_PRELOAD " + kBinary + " client";

TEST(ClockProbe, FindsAProgramUnderLibfaketimeFollowingTheScale) {
  if (!find_libfaketime()) GTEST_SKIP() << "no libfaketime";
  const ClockProbe probe = probe_client_clock(
      {.client = parse_client_choice(kUnderFaketime), .time_scale = TimeScale(10)}, Millis(1000));
  EXPECT_EQ(probe.finding, Finding::follows) << probe.describe();
}

TEST(ClockProbe, AProgramOnTheRealClockIsReportedAndJudgedAtRealTime) {
  if (!find_libfaketime()) GTEST_SKIP() << "no libfaketime";
  Report run;
  {
    ChildProcess child({kBinary, "run", "--client", kEscapingFaketime, "--time-scale", "10",
                        (kCatalog / "09-delay-past-timeout.json").string()});
    const auto status = child.wait(minutes(2));
    run = {status ? status->code : -1, child.standard_output() + child.standard_error(), {}};
  }
  EXPECT_NE(run.output.find("time scale 10: the client does not follow the scaled clock"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("It is judged at real time instead"), std::string::npos) << run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;  // and judged rightly there
}

TEST(TimeScaleOption, ZeroOrAFractionIsAUsageErrorSayingWhatIsAccepted) {
  for (const char* bad : {"0", "2.5", "101", "x"}) {
    ChildProcess child({kBinary, "run", "--time-scale", bad});
    const auto status = child.wait(minutes(1));
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 2) << bad;
    EXPECT_NE(child.standard_error().find("give a whole number from 1 (real time) to 100"),
              std::string::npos)
        << bad << ": " << child.standard_error();
  }
}

}  // namespace
}  // namespace retryproof::scenarios
