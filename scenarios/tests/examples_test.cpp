// The external clients in examples/, run through `retryproof run` as a user would: the
// correct ones meet every scenario, the naive one is flagged for what it does wrong.
// Skipped where the interpreter is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {
namespace {

using std::chrono::minutes;

bool installed(const std::string& program) {
  ChildProcess probe({"/bin/sh", "-c", "command -v " + program});
  const auto status = probe.wait(std::chrono::seconds(10));
  return status && status->exited() && status->code == 0;
}

// The Python interpreter `python3` names, as a path. Where python3 is a version manager's
// shim (pyenv's is a shell script), each start costs most of a second of CPU; a fleet of a
// hundred clients on two cores would then spend the storm's time limit starting, and the
// storm would judge the shim. Empty when python3 is not installed.
const std::string& python3() {
  static const std::string path = [] {
    ChildProcess probe({"/bin/sh", "-c", "python3 -c 'import sys; print(sys.executable)'"});
    const auto status = probe.wait(std::chrono::seconds(30));
    std::string out = probe.standard_output();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
      out.pop_back();
    return status && status->exited() && status->code == 0 ? out : std::string{};
  }();
  return path;
}

struct CatalogRun {
  int exit_code;
  std::string report;
};

CatalogRun run_catalog(const std::string& client_command, const std::string& policy = "",
                       const std::string& scenarios = "",
                       const std::vector<std::string>& more = {}) {
  std::vector<std::string> argv = {RETRYPROOF_BINARY,      "run", "--jobs", "2", "--client",
                                   "cmd:" + client_command};
  if (!scenarios.empty()) argv.push_back(scenarios);
  argv.insert(argv.end(), more.begin(), more.end());
  if (!policy.empty()) argv.insert(argv.end(), {"--client-policy", policy});
  ChildProcess run(argv);
  const auto status = run.wait(minutes(10));
  return {status ? status->code : -1, run.standard_output() + run.standard_error()};
}

TEST(Examples, ThePythonClientMeetsEveryScenario) {
  if (python3().empty()) GTEST_SKIP() << "python3 is not installed";
  const CatalogRun run = run_catalog(python3() + " " EXAMPLES_DIR "/python/correct_client.py");
  EXPECT_EQ(run.exit_code, 0) << run.report;
}

// A careful client that re-sends the same key instead of looking it up (as the Stripe SDK
// does) and keeps a durable record meets every scenario when judged by what it declares.
TEST(Examples, ThePythonClientUnderSameKeyRetryMeetsEveryScenario) {
  if (python3().empty()) GTEST_SKIP() << "python3 is not installed";
  const CatalogRun run =
      run_catalog(python3() + " " EXAMPLES_DIR "/python/correct_client.py --same-key-retry",
                  "on-ambiguous=same-key-retry");
  EXPECT_EQ(run.exit_code, 0) << run.report;
}

// The catalog and the storm set but its hundred-client storm: a hundred Node processes
// need about 50 s of CPU to start, which two cores cannot give inside its 3 s outage and
// 30 s limit, so clients starved of CPU time out (bench/storm.sh runs that fleet, measured).
TEST(Examples, TheNodeClientMeetsEveryScenario) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  const std::string storm = SCENARIOS_DIR "/storm/";
  const CatalogRun run = run_catalog(
      "node " EXAMPLES_DIR "/node/correct_client.mjs", "follows-settings", SCENARIOS_DIR "/catalog",
      {storm + "01-ten-clients-outage.json", storm + "03-brownout.json",
       storm + "04-rate-limited-outage.json", storm + "05-outage-fails-lookups.json",
       storm + "06-two-workers.json"});
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find("29 scenarios"), std::string::npos) << run.report;
}

// Over HTTPS (run --tls), trusting the run's CA only through the environment: Node's fetch
// through NODE_EXTRA_CA_CERTS, Python's urllib through SSL_CERT_FILE. Neither example names
// a certificate; each meets every scenario of the catalog, as over plain HTTP. (The storm
// set's hundred clients over TLS would test the machine's two cores, not TLS.)
TEST(Examples, TheNodeClientMeetsEveryScenarioOverTls) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  const CatalogRun run = run_catalog("node " EXAMPLES_DIR "/node/correct_client.mjs",
                                     "follows-settings", SCENARIOS_DIR "/catalog", {"--tls"});
  EXPECT_EQ(run.exit_code, 0) << run.report;
}

TEST(Examples, ThePythonClientMeetsEveryScenarioOverTls) {
  if (python3().empty()) GTEST_SKIP() << "python3 is not installed";
  const CatalogRun run = run_catalog(python3() + " " EXAMPLES_DIR "/python/correct_client.py", "",
                                     SCENARIOS_DIR "/catalog", {"--tls"});
  EXPECT_EQ(run.exit_code, 0) << run.report;
}

// The official stripe package, unmodified, on the Stripe set: its own retries under one
// key, a replay as its reconciliation (the set declares same-key-retry), no second intent.
TEST(Examples, TheStripeSdkMeetsTheStripeSet) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  ASSERT_TRUE(std::filesystem::exists(EXAMPLES_DIR "/stripe-node/node_modules/stripe/package.json"))
      << "the stripe package is not installed: scripts/setup.sh runs npm ci in "
         "examples/stripe-node";
  const CatalogRun run =
      run_catalog("node " EXAMPLES_DIR "/stripe-node/client.mjs", "", SCENARIOS_DIR "/stripe");
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find("6 scenarios: 6 met their expectations"), std::string::npos)
      << run.report;
}

// Official SDKs from npm, unmodified, each on its own API's wire (examples/<sdk>-node/
// shape.json), judged by what they sent: every red of their sets is a real finding, read in
// examples/libraries/FINDINGS.md, and expected there.
void expect_sdk_set(const std::string& sdk, const std::string& package, const std::string& met) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  const std::string example = EXAMPLES_DIR "/" + sdk + "-node";
  ASSERT_TRUE(std::filesystem::exists(example + "/node_modules/" + package + "/package.json"))
      << "the " << package << " package is not installed: scripts/setup.sh runs npm ci in "
      << example;
  const CatalogRun run =
      run_catalog("node " + example + "/client.mjs", "", SCENARIOS_DIR "/sdks/" + sdk);
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find(met), std::string::npos) << run.report;
}

TEST(Examples, TheSquareSdkMeetsItsSet) {
  expect_sdk_set("square", "square", "7 scenarios: 7 met their expectations");
}

TEST(Examples, TheModernTreasurySdkMeetsItsSet) {
  expect_sdk_set("modern-treasury", "modern-treasury", "7 scenarios: 7 met their expectations");
}

// OpenAI's API has no idempotency key and its SDK retries creates by default: its set
// expects the duplicates those retries make (no-duplicate-effect, harm) and names the retry
// after a 503 a policy miss although it made one job.
TEST(Examples, TheOpenAiSdkIsJudgedOnAnApiWithoutKeys) {
  expect_sdk_set("openai", "openai", "6 scenarios: 6 met their expectations");
}

// Mollie's SDK refuses plain HTTP: its set runs over TLS ("tls": true) and expects two real
// findings, gave-up after a 429 it never retries and client-error after a 201 cut short.
TEST(Examples, TheMollieSdkMeetsItsSetOverHttps) {
  expect_sdk_set("mollie", "@mollie/api-client", "8 scenarios: 8 met their expectations");
}

// AWS's Python SDK, Debian's python3-boto3 unmodified, run by the interpreter Debian
// installed it for, on a Secrets Manager CreateSecret shape: AWS throttles with a 400
// ThrottlingException, which botocore retries rightly and the verdicts read as the rate
// limit it was mapped from; in both of botocore's retry modes (AWS_RETRY_MODE, as its
// documentation configures them).
TEST(Examples, TheDebianBoto3SdkMeetsItsSetInBothRetryModes) {
  const std::string python = "/usr/bin/python3";
  ChildProcess probe({python, "-c", "import boto3"});
  const auto status = probe.wait(std::chrono::seconds(30));
  if (!status || !status->exited() || status->code != 0)
    GTEST_SKIP() << "Debian's python3-boto3 is not installed: scripts/setup.sh installs it";
  for (const char* mode : {"legacy", "standard"}) {
    ::setenv("AWS_RETRY_MODE", mode, 1);
    const CatalogRun run = run_catalog(python + " " EXAMPLES_DIR "/aws-python/client.py", "",
                                       SCENARIOS_DIR "/sdks/aws");
    EXPECT_EQ(run.exit_code, 0) << mode << "\n" << run.report;
    EXPECT_NE(run.report.find("3 scenarios: 3 met their expectations"), std::string::npos)
        << mode << "\n"
        << run.report;
  }
  ::unsetenv("AWS_RETRY_MODE");
}

// run --api: the catalog on Stripe's wire. What cannot mean the same there is skipped, with
// its reason, and the rest runs under the shape.
TEST(Examples, RunApiPutsTheCatalogOnAnotherWireAndSaysWhatItSkips) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  const CatalogRun run =
      run_catalog("node " EXAMPLES_DIR "/stripe-node/client.mjs", "on-ambiguous=same-key-retry", "",
                  {"--api", "stripe", "--filter", "commit-then-error"});
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find("1 scenario: 1 met its expectations"), std::string::npos) << run.report;
  EXPECT_NE(run.report.find("skipped lookup-unavailable on the stripe API: its fault fails "
                            "lookups, and the stripe API has none"),
            std::string::npos)
      << run.report;
  EXPECT_NE(run.report.find("--api stripe"), std::string::npos) << run.report;  // the replay
}

// Careful clients on real retry libraries (examples/libraries: tenacity, urllib3's Retry,
// cockatiel), each judged by the policy it has, through the catalog scenarios that take the
// lookup path: a drop after the commit (the lookup finds the job), a timeout after the commit
// (the same, a second later), and a lookup that fails (fail closed: unknown). Each scenario
// fails as inconclusive should its planned fault not fire, and a client that re-sent instead
// of looking up would fail fail-closed: the test cannot pass on a client that was not
// exercised. Debian's python3 (/usr/bin/python3) has the Python libraries (setup.sh).
void expect_careful_client_meets_the_lookup_path(const std::string& command) {
  const std::string catalog = SCENARIOS_DIR "/catalog/";
  const CatalogRun run = run_catalog(
      command, "attempts=3,min-backoff=50ms,timeout=1s", catalog + "03-commit-then-drop.json",
      {catalog + "09-delay-past-timeout.json", catalog + "12-lookup-unavailable.json"});
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find("3 scenarios: 3 met their expectations"), std::string::npos)
      << run.report;
  EXPECT_NE(run.report.find("lookup-unavailable (faults[1]) fired 1 time in 1 lookup"),
            std::string::npos)
      << run.report;
}

bool debian_python_has(const std::string& modules) {
  ChildProcess probe({"/usr/bin/python3", "-c", "import " + modules});
  const auto status = probe.wait(std::chrono::seconds(30));
  return status && status->exited() && status->code == 0;
}

TEST(Examples, TheCarefulTenacityClientLooksUpAndFailsClosed) {
  if (!std::filesystem::exists("/usr/bin/python3"))
    GTEST_SKIP() << "Debian's python3 is not installed";
  ASSERT_TRUE(debian_python_has("tenacity, urllib3"))
      << "python3-tenacity or python3-urllib3 is not installed: scripts/setup.sh installs them";
  expect_careful_client_meets_the_lookup_path("/usr/bin/python3 " EXAMPLES_DIR
                                              "/libraries/python/tenacity_careful.py");
}

TEST(Examples, TheCarefulUrllib3ClientLooksUpAndFailsClosed) {
  if (!std::filesystem::exists("/usr/bin/python3"))
    GTEST_SKIP() << "Debian's python3 is not installed";
  ASSERT_TRUE(debian_python_has("urllib3"))
      << "python3-urllib3 is not installed: scripts/setup.sh installs it";
  expect_careful_client_meets_the_lookup_path("/usr/bin/python3 " EXAMPLES_DIR
                                              "/libraries/python/urllib3_careful.py");
}

TEST(Examples, TheCarefulCockatielClientLooksUpAndFailsClosed) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  ASSERT_TRUE(
      std::filesystem::exists(EXAMPLES_DIR "/libraries/node/node_modules/cockatiel/package.json"))
      << "the cockatiel package is not installed: scripts/setup.sh runs npm ci in "
         "examples/libraries/node";
  expect_careful_client_meets_the_lookup_path("node " EXAMPLES_DIR
                                              "/libraries/node/cockatiel-careful.mjs");
}

TEST(Examples, TheNaivePythonClientIsFlaggedForDuplicatesAndKeys) {
  if (python3().empty()) GTEST_SKIP() << "python3 is not installed";
  const CatalogRun run = run_catalog(python3() + " " EXAMPLES_DIR "/python/naive_client.py");
  EXPECT_EQ(run.exit_code, 1) << run.report;
  EXPECT_NE(run.report.find("no-duplicate-effect     FAIL"), std::string::npos) << run.report;
  EXPECT_NE(run.report.find("key-stability           FAIL"), std::string::npos) << run.report;
}

// Runs a scenario given as JSON text over HTTP with the reference client, expects it met, and
// gives its result from the JSON report (empty when the run did not end or wrote none).
nlohmann::json run_met(const std::string& text) {
  const std::string scenario =
      ::testing::TempDir() + "/" + nlohmann::json::parse(text)["name"].get<std::string>() + ".json";
  std::ofstream(scenario) << text;
  ChildProcess run({RETRYPROOF_BINARY, "run", scenario, "--json", scenario + ".out"});
  const auto status = run.wait(minutes(2));
  EXPECT_TRUE(status.has_value());
  if (!status) return {};
  EXPECT_EQ(status->code, 0) << run.standard_output() << run.standard_error();
  return nlohmann::json::parse(std::ifstream(scenario + ".out"))["scenarios"][0];
}

// Steady traffic over real HTTP: each instance one session (docs/sessions.md), operations
// sent as they arrive, outcomes read back by id, requests charged by what they carry.
TEST(TrafficOverHttp, TheReferenceClientsSessionsMeetABriefOutageUnderTraffic) {
  const nlohmann::json result = run_met(R"({"name": "brief-traffic",
    "traffic": {"rate": "20/s", "for": "12s", "instances": 3, "recoverWithin": "4s"},
    "plan": {"capacity": {"rate": "100/s", "queue": 100, "deadline": "2s"},
             "outages": [{"from": "3s", "for": "3s", "fault": "fail-before-commit"}]},
    "client": {"timeout": "1s", "baseDelay": "200ms", "maxDelay": "1s"},
    "expect": {"outcomes": ["succeeded", "failed", "unknown"]}})");
  ASSERT_TRUE(result.is_object()) << "the run wrote no report";
  // About 240 arrived, every one answered by its session, and each charged its own requests
  // or refused by its instance's open circuit (before its first request, or between two).
  EXPECT_GT(result["invocations"].size(), 150u);
  int refused = 0;
  for (const auto& invocation : result["invocations"]) {
    EXPECT_EQ(invocation["clientError"], "") << invocation.dump();
    const bool sent = invocation["firstSeq"].get<int>() <= invocation["lastSeq"].get<int>();
    const bool refused_by_breaker =
        invocation["outcome"].value("reason", std::string()).find("circuit is open") !=
        std::string::npos;
    EXPECT_TRUE(sent || refused_by_breaker) << invocation.dump();
    refused += refused_by_breaker ? 1 : 0;
  }
  EXPECT_GT(refused, 0) << "a 3 s outage at 20/s opens each instance's circuit";
  for (const auto& verdict : result["verdicts"]) {
    if (verdict["id"] == "recovery" || verdict["id"] == "retry-budget" ||
        verdict["id"] == "gave-up") {
      EXPECT_EQ(verdict["status"], "pass") << verdict.dump();
    }
    if (verdict["id"] == "stopping") {  // a 3 s outage is not one to judge stopping in
      EXPECT_EQ(verdict["status"], "n/a") << verdict.dump();
    }
  }
}

// A kill under traffic over real processes: at 4 s instance 2's session is sent SIGKILL with
// operations in flight whose creates the provider had committed (it answers 2 s late), and is
// restarted; each of those operations runs again on the new process as a rerun of its own,
// which must find the job by the key the killed process kept on disk.
TEST(TrafficOverHttp, AKilledSessionsRerunsFindWhatItCommitted) {
  const nlohmann::json result = run_met(R"({"name": "kill-traffic",
    "traffic": {"rate": "20/s", "for": "8s", "instances": 4,
                "kills": [{"instance": 2, "at": "4s"}]},
    "plan": {"chaos": {"seed": 1, "rates": {"commit-then-delay:2s": 1.0}}},
    "client": {"timeout": "5s", "baseDelay": "200ms", "maxDelay": "1s"},
    "expect": {"outcomes": ["succeeded"]}})");
  ASSERT_TRUE(result.is_object()) << "the run wrote no report";
  std::set<int> killed;  // by number
  int reruns = 0;
  for (const auto& invocation : result["invocations"]) {
    if (invocation["killed"] == true) {
      EXPECT_EQ(invocation["instance"], 2) << invocation.dump();
      killed.insert(invocation["number"].get<int>());
    }
    if (!invocation.contains("rerunOf")) continue;
    ++reruns;
    EXPECT_TRUE(killed.contains(invocation["rerunOf"].get<int>())) << invocation.dump();
    EXPECT_EQ(invocation["outcome"]["outcome"], "succeeded") << invocation.dump();
  }
  // Instance 2 serves 5 a second, each in flight for 2 s after its commit.
  EXPECT_GE(killed.size(), 3u);
  EXPECT_EQ(reruns, static_cast<int>(killed.size()));
  for (const auto& verdict : result["verdicts"]) {
    if (verdict["id"] == "crash-recovery" || verdict["id"] == "no-duplicate-effect") {
      EXPECT_EQ(verdict["status"], "pass") << verdict.dump();
    }
  }
}

// Every session of a fleet is told which instance it serves (RETRYPROOF_SERVICE_INSTANCE),
// and each instance its own state directory: a client may name per-instance state after it.
TEST(TrafficOverHttp, EachSessionIsToldWhichInstanceItServes) {
  if (python3().empty()) GTEST_SKIP() << "python3 is not installed";
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/which-instance.py") << R"(import json, os, sys
told = os.environ["RETRYPROOF_SERVICE_INSTANCE"] + "@" + os.environ["RETRYPROOF_STATE_DIR"]
for line in sys.stdin:
    print(json.dumps({"id": json.loads(line)["id"], "outcome": "failed", "reason": told}),
          flush=True)
)";
  std::ofstream(dir + "/three-instances.json") << R"({"name": "three-instances",
    "traffic": {"rate": "20/s", "for": "1s", "instances": 3, "arrival": "uniform"},
    "plan": {"faults": []},
    "expect": {"outcomes": ["failed"]}})";
  ChildProcess run({RETRYPROOF_BINARY, "run", dir + "/three-instances.json", "--client",
                    "cmd:" + python3() + " " + dir + "/which-instance.py", "--json",
                    dir + "/three-instances.out"});
  ASSERT_TRUE(run.wait(minutes(1)).has_value());
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(dir + "/three-instances.out"));
  const nlohmann::json& invocations = report["scenarios"][0]["invocations"];
  ASSERT_EQ(invocations.size(), 20u) << run.standard_output() << run.standard_error();
  std::set<std::string> state_dirs;
  for (const auto& invocation : invocations) {
    const std::string told = invocation["outcome"]["reason"];
    const std::string instance = told.substr(0, told.find('@'));
    EXPECT_EQ(instance, std::to_string(invocation["index"].get<int>() % 3 + 1)) << told;
    state_dirs.insert(told.substr(told.find('@') + 1));
  }
  EXPECT_EQ(state_dirs.size(), 3u);
}

// The Python session example keeps a retry budget: a capacity drop under traffic that keeps a
// fleet without one at goodput 0/s (the no-budget mutant in simulation, and this client before
// it had one, over HTTP) drains, and the fleet recovers.
TEST(TrafficOverHttp, ThePythonSessionClientWithItsBudgetRecoversFromACapacityDrop) {
  if (python3().empty()) GTEST_SKIP() << "python3 is not installed";
  const CatalogRun run =
      run_catalog(python3() + " " EXAMPLES_DIR "/python/session_client.py", "retry-budget=10%",
                  SCENARIOS_DIR "/traffic/01-capacity-drop.json");
  EXPECT_EQ(run.exit_code, 0) << run.report;
}

// Debian's boto3 as a long-lived client per instance: standard mode's retry quota (500 tokens
// at 5 a retry: retry-budget=20%/100) engages in a 20 s outage under traffic, and the fleet
// recovers.
TEST(TrafficOverHttp, Boto3StandardModesQuotaHoldsItsFleetThroughALongOutage) {
  ChildProcess probe({"/usr/bin/python3", "-c", "import boto3"});
  const auto status = probe.wait(std::chrono::seconds(30));
  if (!status || !status->exited() || status->code != 0)
    GTEST_SKIP() << "Debian's python3-boto3 is not installed: scripts/setup.sh installs it";
  ::setenv("AWS_RETRY_MODE", "standard", 1);
  const CatalogRun run =
      run_catalog("/usr/bin/python3 " EXAMPLES_DIR "/aws-python/session_client.py",
                  "attempts=3,retry-budget=20%/100", SCENARIOS_DIR "/sdks/aws-traffic");
  ::unsetenv("AWS_RETRY_MODE");
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find("retry-budget            pass"), std::string::npos) << run.report;
}

// The storm set as sessions (run --sessions): the hundred-client storm is ten Node processes,
// not a hundred, so it is fair to a Node client on two cores; the two workers racing for one
// operation get a session and a port each, and the run says why.
TEST(TrafficOverHttp, TheNodeSessionClientMeetsTheStormSetAsSessions) {
  if (!installed("node")) GTEST_SKIP() << "node is not installed";
  const CatalogRun run = run_catalog("node " EXAMPLES_DIR "/node/session_client.mjs", "",
                                     SCENARIOS_DIR "/storm", {"--sessions"});
  EXPECT_EQ(run.exit_code, 0) << run.report;
  EXPECT_NE(run.report.find("storm-two-workers: a session per invocation"), std::string::npos)
      << run.report;
}

}  // namespace
}  // namespace retryproof::scenarios
