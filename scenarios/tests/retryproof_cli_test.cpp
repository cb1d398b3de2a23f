// The retryproof program as a user runs it: a real process, real signals, real sockets.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {
namespace {

// A file in a fresh temporary directory, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& content) : file_(dir_.write("plan.json", content)) {}
  std::string path() const { return file_.string(); }

 private:
  TempDir dir_;
  std::filesystem::path file_;
};

using std::chrono::seconds;

const std::string kBinary = RETRYPROOF_BINARY;

ExitStatus run_to_end(ChildProcess& child) {
  const auto status = child.wait(seconds(30));
  if (!status) ADD_FAILURE() << "the command did not finish; stderr: " << child.standard_error();
  return status.value_or(ExitStatus{.code = -1});
}

// A usage error: exit 2, exactly `message` as one line on standard error, and no report.
void expect_usage_error(const std::vector<std::string>& arguments, const std::string& message) {
  std::vector<std::string> command = {kBinary};
  command.insert(command.end(), arguments.begin(), arguments.end());
  ChildProcess child(command);
  EXPECT_EQ(run_to_end(child).code, 2);
  EXPECT_EQ(child.standard_error(), message + "\n");
  EXPECT_EQ(child.standard_output(), "");
}

TEST(RetryproofCommand, HelpListsTheSubcommands) {
  ChildProcess child({kBinary, "--help"});
  EXPECT_EQ(run_to_end(child).code, 0);
  EXPECT_NE(child.standard_output().find("provider"), std::string::npos);
  EXPECT_NE(child.standard_output().find("demo"), std::string::npos);
}

TEST(RetryproofCommand, VersionSaysWhichRetryproofThisIs) {
  ChildProcess child({kBinary, "--version"});
  EXPECT_EQ(run_to_end(child).code, 0) << child.standard_error();
  EXPECT_EQ(child.standard_output(), "retryproof " RETRYPROOF_VERSION "\n");
}

TEST(RetryproofCommand, NoSubcommandIsAUsageErrorListingTheCommands) {
  ChildProcess child({kBinary});
  const ExitStatus status = run_to_end(child);
  EXPECT_TRUE(status.exited());
  EXPECT_EQ(status.code, 2);
  EXPECT_NE(child.standard_error().find(
                "retryproof: a command is required: provider, proxy, run, explore, client, demo, "
                "judge, deliver or ui-snapshot; "),
            std::string::npos)
      << child.standard_error();
  EXPECT_NE(child.standard_error().find("; see retryproof --help"), std::string::npos);
}

// A misspelt command or option: exit 2, one line, the closest known word and where the help is.
struct UsageTypo {
  const char* name;
  std::vector<std::string> arguments;
  std::string says;
};

class UsageErrors : public ::testing::TestWithParam<UsageTypo> {};

TEST_P(UsageErrors, SuggestTheClosestKnownWord) {
  expect_usage_error(GetParam().arguments, GetParam().says);
}

INSTANTIATE_TEST_SUITE_P(
    Typos, UsageErrors,
    ::testing::Values(
        UsageTypo{"Command",
                  {"rnu"},
                  "retryproof: unknown command \"rnu\" (did you mean \"run\"?); see retryproof "
                  "--help"},
        UsageTypo{"TopLevelOption",
                  {"--verison"},
                  "retryproof: unknown option \"--verison\" (did you mean \"--version\"?); see "
                  "retryproof --help"},
        UsageTypo{"SubcommandOption",
                  {"run", "--junt", "r.xml"},
                  "retryproof run: unknown option \"--junt\" (did you mean \"--junit\"?); see "
                  "retryproof run --help"},
        UsageTypo{"OptionWithValue",
                  {"provider", "--prot=4040"},
                  "retryproof provider: unknown option \"--prot\" (did you mean \"--port\"?); "
                  "see retryproof provider --help"},
        // CLI11 finds the required --upstream missing before it looks at the extras.
        UsageTypo{"RequiredOptionMisspelt",
                  {"proxy", "--upstrem", "http://127.0.0.1:1"},
                  "retryproof proxy: unknown option \"--upstrem\" (did you mean "
                  "\"--upstream\"?); see retryproof proxy --help"},
        UsageTypo{"RequiredOptionMissing",
                  {"proxy", "--port", "0"},
                  "retryproof proxy: --upstream is required; see retryproof proxy --help"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

class ProviderProcess : public ::testing::TestWithParam<int> {};

TEST_P(ProviderProcess, PrintsItsUrlFirstServesLogsAndStopsCleanlyOnSignal) {
  ChildProcess child({kBinary, "provider", "--port", "0", "--seed", "7"});
  const auto url = child.read_line(seconds(10));
  ASSERT_TRUE(url) << child.standard_error();
  ASSERT_TRUE(std::regex_match(*url, std::regex(R"(http://127\.0\.0\.1:\d+)"))) << *url;

  httplib::Client client(*url);
  const auto created = client.Post("/jobs", {{"Idempotency-Key", "cli-key"}},
                                   R"({"orderId":"o-1"})", "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);

  child.send_signal(GetParam());
  const ExitStatus status = run_to_end(child);
  EXPECT_TRUE(status.exited()) << status.describe();
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(child.standard_error().find("[provider] key=\"cli-key\" NEW fault=none"),
            std::string::npos)
      << child.standard_error();
  EXPECT_EQ(child.standard_error().find("o-1"), std::string::npos) << "payloads are never logged";
}

INSTANTIATE_TEST_SUITE_P(StopSignals, ProviderProcess, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param_info) {
                           return param_info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

TEST(RetryproofCommand, ProviderOnABusyPortSaysSoAndFails) {
  provider::ProviderServer occupant({}, {.port = 0});
  ChildProcess child({kBinary, "provider", "--port", std::to_string(occupant.port())});
  const ExitStatus status = run_to_end(child);
  EXPECT_EQ(status.code, 1);
  EXPECT_NE(
      child.standard_error().find("cannot listen on 127.0.0.1:" + std::to_string(occupant.port())),
      std::string::npos)
      << child.standard_error();
  EXPECT_NE(child.standard_error().find("the port is in use; --port 0 picks a free one"),
            std::string::npos)
      << child.standard_error();
}

TEST(RetryproofCommand, ProviderRefusesAnOutOfRangePort) {
  ChildProcess child({kBinary, "provider", "--port", "70000"});
  const ExitStatus status = run_to_end(child);
  EXPECT_NE(status.code, 0);
  EXPECT_NE(child.standard_error().find("--port"), std::string::npos) << child.standard_error();
}

TEST(RetryproofCommand, ProviderStartsWithThePlanFileInForce) {
  TempFile plan(R"({"faults":[{"fault":"commit-then-error","key":"planned"}]})");
  ChildProcess child({kBinary, "provider", "--port", "0", "--plan", plan.path()});
  const auto url = child.read_line(seconds(10));
  ASSERT_TRUE(url) << child.standard_error();
  httplib::Client client(*url);
  EXPECT_EQ(client.Post("/jobs", {{"Idempotency-Key", "other"}}, "{}", "application/json")->status,
            201);
  EXPECT_EQ(
      client.Post("/jobs", {{"Idempotency-Key", "planned"}}, "{}", "application/json")->status,
      503);
}

TEST(RetryproofCommand, APlanFileWithAnErrorIsRefusedNamingTheFileAndTheEntry) {
  TempFile plan(R"({"faults":["none",{"fault":"commit-then-drop","key":"k","tims":2}]})");
  ChildProcess child({kBinary, "provider", "--port", "0", "--plan", plan.path()});
  EXPECT_EQ(run_to_end(child).code, 2);
  EXPECT_NE(child.standard_error().find(plan.path() + ": faults[1]: unknown field \"tims\""),
            std::string::npos)
      << child.standard_error();
  EXPECT_EQ(child.standard_output(), "") << "nothing may listen on an invalid plan";
}

TEST(RetryproofCommand, APlanFileThatIsNotJsonSaysWhere) {
  TempFile plan("{\"faults\": [\n  \"none\",\n]}");
  ChildProcess child({kBinary, "provider", "--port", "0", "--plan", plan.path()});
  EXPECT_EQ(run_to_end(child).code, 2);
  EXPECT_NE(child.standard_error().find("line 3, column 1"), std::string::npos)
      << child.standard_error();
}

TEST(RetryproofCommand, BadFlagValuesAreUsageErrors) {
  for (const std::vector<std::string>& flags : {std::vector<std::string>{"--key-ttl", "3x"},
                                                {"--profile", "strip"},
                                                {"--plan", "/nonexistent.json"}}) {
    std::vector<std::string> argv = {kBinary, "provider", "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ChildProcess child(argv);
    EXPECT_EQ(run_to_end(child).code, 2) << flags[0];
    EXPECT_NE(child.standard_error().find(flags[1]), std::string::npos) << child.standard_error();
  }
}

TEST(RetryproofCommand, ANonLoopbackHostWarnsThatTheControlPlaneIsExposed) {
  ChildProcess child({kBinary, "provider", "--host", "0.0.0.0", "--port", "0"});
  ASSERT_TRUE(child.read_line(seconds(10))) << child.standard_error();
  child.send_signal(SIGTERM);
  EXPECT_EQ(run_to_end(child).code, 0);
  EXPECT_NE(child.standard_error().find("exposes the control plane"), std::string::npos)
      << child.standard_error();
}

TEST(RunCommand, ACatalogErrorIsExit2NamingFilePathAndExpectation) {
  TempFile bad(R"({"name":"x","operations":[{"id":"op"}],"client":{"timeout":"3x"}})");
  ChildProcess child({kBinary, "run", bad.path()});
  EXPECT_EQ(run_to_end(child).code, 2);
  EXPECT_NE(child.standard_error().find(bad.path() + ": $.client.timeout: bad duration \"3x\""),
            std::string::npos)
      << child.standard_error();
  EXPECT_EQ(child.standard_output(), "") << "nothing runs on an invalid catalog";
}

TEST(RunCommand, AScenarioTheClientMeetsIsExit0AndWritesEveryReport) {
  TempFile reports("");
  const auto dir = std::filesystem::path(reports.path()).parent_path();
  ChildProcess child({kBinary, "run", "--filter", "commit-then-drop", "--json",
                      (dir / "r.json").string(), "--junit", (dir / "r.xml").string(), "--markdown",
                      (dir / "r.md").string()});
  EXPECT_EQ(run_to_end(child).code, 0) << child.standard_output();
  EXPECT_NE(child.standard_output().find("PASS  commit-then-drop"), std::string::npos);
  // Progress, off a terminal: a plain line per scenario as it finishes, on standard error
  // (the filter matches commit-then-drop and no-dedup-commit-then-drop; either may be first).
  EXPECT_NE(child.standard_error().find("] PASS commit-then-drop\n"), std::string::npos)
      << child.standard_error();
  EXPECT_NE(child.standard_error().find("[2/2] PASS "), std::string::npos)
      << child.standard_error();
  EXPECT_EQ(child.standard_error().find('\r'), std::string::npos) << "no redrawing in a log";
  std::ifstream json_file(dir / "r.json");
  const auto summary = nlohmann::json::parse(json_file, nullptr, false);
  ASSERT_TRUE(summary.is_object());
  EXPECT_EQ(summary["scenarios"][0]["name"], "commit-then-drop");
  std::stringstream xml;
  xml << std::ifstream(dir / "r.xml").rdbuf();
  EXPECT_NE(xml.str().find("<testsuite"), std::string::npos);
  std::stringstream markdown;
  markdown << std::ifstream(dir / "r.md").rdbuf();
  EXPECT_NE(markdown.str().find("commit-then-drop"), std::string::npos);
}

TEST(RunCommand, AMutantIsExit1WithTheVerdictThatCaughtIt) {
  ChildProcess child(
      {kBinary, "run", "--filter", "commit-then-drop", "--client", "mutant:blind-retry"});
  EXPECT_EQ(run_to_end(child).code, 1);
  EXPECT_NE(child.standard_output().find("was re-sent (seq 2) after a dropped connection (seq 1)"),
            std::string::npos)
      << child.standard_output();
}

TEST(RunCommand, FailOnHarmPassesARunWithPolicyFailuresOnly) {
  // blind-retry re-sends after the 500: a policy failure under lookup-first, no harm where
  // the provider enforces keys.
  ChildProcess policy({kBinary, "run", "--filter", "500-after-commit", "--client",
                       "mutant:blind-retry", "--fail-on", "harm"});
  EXPECT_EQ(run_to_end(policy).code, 0) << policy.standard_output();
  EXPECT_NE(policy.standard_output().find("FAIL policy"), std::string::npos);
  EXPECT_NE(policy.standard_output().find("--fail-on harm counts harm alone"), std::string::npos);
  // Where it does not, the same re-send is a second job: harm, which fails the run.
  ChildProcess harm({kBinary, "run", "--filter", "no-dedup-commit-then-drop", "--client",
                     "mutant:blind-retry", "--fail-on", "harm"});
  EXPECT_EQ(run_to_end(harm).code, 1) << harm.standard_output();
  EXPECT_NE(harm.standard_output().find("no-duplicate-effect     FAIL harm"), std::string::npos)
      << harm.standard_output();
}

TEST(RunCommand, ADeclaredPolicyChangesTheVerdictAndATypoInItIsExit2) {
  ChildProcess declared({kBinary, "run", "--filter", "500-after-commit", "--client",
                         "mutant:blind-retry", "--client-policy", "on-ambiguous=same-key-retry"});
  EXPECT_EQ(run_to_end(declared).code, 0) << declared.standard_output();
  ChildProcess typo({kBinary, "run", "--client-policy", "attempt=4"});
  EXPECT_EQ(run_to_end(typo).code, 2);
  EXPECT_NE(typo.standard_error().find("unknown key \"attempt\" (did you mean \"attempts\"?)"),
            std::string::npos)
      << typo.standard_error();
}

// docs/scenarios.md: the outcome is the last line of standard output that is a JSON object.
TEST(RunCommand, TheOutcomeIsTheLastJsonObjectTheClientPrints) {
  TempFile report("");
  ChildProcess child({kBinary, "run", "--filter", "commit-then-drop", "--json", report.path(),
                      "--client",
                      R"(cmd:echo 'starting'; echo '{"outcome":"failed","reason":"a log line"}'; )"
                      R"(echo '{"outcome":"unknown","idempotencyKey":"k"}'; echo 'bye')"});
  run_to_end(child);
  std::ifstream file(report.path());
  const auto summary = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(summary.is_object()) << child.standard_error();
  for (const auto& scenario : summary["scenarios"]) {
    EXPECT_EQ(scenario["invocations"][0]["outcome"],
              nlohmann::json({{"outcome", "unknown"}, {"idempotencyKey", "k"}}))
        << scenario["name"];
  }
}

// What can be known before the first scenario is an error before it: exit 2, one line.
TEST(RunCommand, AReportPathThatCannotBeWrittenIsExit2BeforeAnyScenario) {
  expect_usage_error({"run", "--filter", "commit-then-drop", "--junit", "/nonexistent-dir/r.xml"},
                     "retryproof run: --junit /nonexistent-dir/r.xml: cannot be written");
}

TEST(RunCommand, AClientProgramThatIsNotThereIsExit2BeforeAnyScenario) {
  expect_usage_error({"run", "--client", "cmd:./no-such-client.py --flag"},
                     "retryproof run: --client cmd:./no-such-client.py --flag: "
                     "./no-such-client.py does not exist");
  ChildProcess typo({kBinary, "run", "--client", "cmd:pyhton3 client.py"});
  EXPECT_EQ(run_to_end(typo).code, 2);
  EXPECT_NE(typo.standard_error().find("\"pyhton3\" is not a program on PATH"), std::string::npos)
      << typo.standard_error();
  // The interpreter is there; its script is not, and every scenario would be client-error.
  expect_usage_error({"run", "--client", "cmd:sh ./no-such-client.sh"},
                     "retryproof run: --client cmd:sh ./no-such-client.sh: ./no-such-client.sh "
                     "does not exist (the script sh would run)");
}

TEST(RunCommand, MutantsSaysWhyItRunsFewerScenariosThanTheCatalogHas) {
  TempDir catalog;
  catalog.write("a.json", R"({"name": "commit-then-drop", "plan": {"faults": ["commit-then-drop"]},
    "operations": [{"id": "op-1", "payload": {"orderId": "o-1"}}], "expect": {"jobs": 1}})");
  catalog.write("b.json", R"({"name": "fresh-key", "plan": {"faults": ["commit-then-error"]},
    "operations": [{"id": "op-1", "payload": {"orderId": "o-1"}}],
    "client": {"use": "mutant:fresh-key-per-attempt"},
    "expect": {"jobs": 2, "violations": ["no-duplicate-effect"]}})");
  ChildProcess child({kBinary, "run", "--mutants", catalog.path().string()});
  EXPECT_NE(run_to_end(child).code, 2) << child.standard_error();
  EXPECT_NE(child.standard_error().find("running 1 scenario against reference (1 of 2: fresh-key "
                                        "is pinned to its own client)\n"),
            std::string::npos)
      << child.standard_error();
}

// The matrix's report files hold the matrix, not empty files (a CI job reads them).
TEST(RunCommand, MutantsWritesTheMatrixToEveryReportFileAskedFor) {
  TempDir catalog;
  catalog.write("a.json", R"({"name": "commit-then-drop", "plan": {"faults": ["commit-then-drop"]},
    "operations": [{"id": "op-1", "payload": {"orderId": "o-1"}}], "expect": {"jobs": 1}})");
  TempDir out;
  const std::string json_path = (out.path() / "m.json").string();
  const std::string junit_path = (out.path() / "m.xml").string();
  const std::string markdown_path = (out.path() / "m.md").string();
  ChildProcess child({kBinary, "run", "--mutants", catalog.path().string(), "--seed", "4",
                      "--time-scale", "10", "--json", json_path, "--junit", junit_path,
                      "--markdown", markdown_path});
  // One scenario catches some mutants only: the matrix does not hold, exit 1.
  EXPECT_EQ(run_to_end(child).code, 1) << child.standard_error();
  const auto read = [](const std::string& path) {
    std::ifstream file(path);
    return std::string(std::istreambuf_iterator<char>(file), {});
  };
  const auto matrix = nlohmann::json::parse(read(json_path), nullptr, false);
  ASSERT_TRUE(matrix.is_object()) << read(json_path);
  EXPECT_EQ(matrix["seed"], 4);
  EXPECT_EQ(matrix["timeScale"]["asked"], 10);
  EXPECT_EQ(matrix["holds"], false);
  ASSERT_EQ(matrix["clients"].size(), 12u);  // the reference client and eleven mutants
  EXPECT_EQ(matrix["clients"][0]["client"], "reference");
  EXPECT_EQ(matrix["clients"][0]["result"], "clean");
  EXPECT_EQ(matrix["replay"],
            "retryproof run " + catalog.path().string() + " --mutants --seed 4 --time-scale 10");
  const std::string junit = read(junit_path);
  EXPECT_NE(junit.find(R"(<testsuite name="retryproof: mutant matrix" tests="12")"),
            std::string::npos)
      << junit;
  const std::string markdown = read(markdown_path);
  EXPECT_TRUE(markdown.starts_with("## retryproof mutant matrix (seed 4, time scale 10)\n"))
      << markdown;
  EXPECT_NE(child.standard_output().find("mutant matrix (seed 4, time scale 10): "),
            std::string::npos)
      << child.standard_output();
}

TEST(ExploreCommand, KeepsTheDefaultSettingsForAClientThatDoesNotFollowThem) {
  TempFile saved("");
  ChildProcess child({kBinary, "explore", "--client", "cmd:exit 3", "--runs", "1", "--seed", "5",
                      "--time-limit", "1m", "--save", saved.path()});
  run_to_end(child);
  EXPECT_NE(child.standard_output().find("with the default client settings"), std::string::npos)
      << child.standard_output();
  std::ifstream file(saved.path());
  const auto schedule = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(schedule.is_object()) << child.standard_output();
  EXPECT_EQ(schedule["client"], nlohmann::json({{"attempts", 3},
                                                {"baseDelay", "100ms"},
                                                {"maxDelay", "1000ms"},
                                                {"timeout", "1000ms"}}));
}

TEST(ExploreCommand, FindsShrinksAndSavesAReplayableCounterexampleForAMutant) {
  TempFile saved("");
  ChildProcess child({kBinary, "explore", "--client", "mutant:blind-retry", "--runs", "30",
                      "--seed", "3", "--save", saved.path()});
  EXPECT_EQ(run_to_end(child).code, 1) << child.standard_output();
  const std::string& out = child.standard_output();
  EXPECT_NE(out.find("the smallest schedule found that still fails"), std::string::npos) << out;
  // Progress on standard error: the schedules tried, then the best counterexample so far.
  EXPECT_NE(child.standard_error().find("] VIOLATION: schedule "), std::string::npos)
      << child.standard_error();
  EXPECT_NE(child.standard_error().find("shrinking: 0 tried; smallest failing so far: "),
            std::string::npos)
      << child.standard_error();
  EXPECT_NE(child.standard_error().find(" tried; smallest failing so far: 1 operation, "),
            std::string::npos)
      << child.standard_error();
  const auto replay_at =
      out.find("retryproof run " + saved.path() + " --client mutant:blind-retry --seed ");
  ASSERT_NE(replay_at, std::string::npos) << out;

  // The saved schedule is small, and replays the violation with the printed seed.
  std::ifstream file(saved.path());
  const auto schedule = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(schedule.is_object());
  EXPECT_EQ(schedule["operations"].size(), 1u);
  EXPECT_LE(schedule["plan"]["faults"].size(), 2u);
  const std::string seed =
      out.substr(out.find("--seed ", replay_at) + 7,
                 out.find('\n', replay_at) - out.find("--seed ", replay_at) - 7);
  ChildProcess replay(
      {kBinary, "run", saved.path(), "--client", "mutant:blind-retry", "--seed", seed});
  EXPECT_EQ(run_to_end(replay).code, 1) << replay.standard_output();
}

TEST(ExploreCommand, ASavePathThatCannotBeWrittenIsExit2BeforeTheFirstSchedule) {
  expect_usage_error({"explore", "--save", "/nonexistent-dir/c.json"},
                     "retryproof explore: --save /nonexistent-dir/c.json: its directory "
                     "/nonexistent-dir does not exist");
}

TEST(ExploreCommand, FindsNothingWrongWithTheReferenceClient) {
  TempFile saved("");
  ChildProcess child({kBinary, "explore", "--runs", "12", "--seed", "3", "--save", saved.path()});
  EXPECT_EQ(run_to_end(child).code, 0) << child.standard_output();
  EXPECT_NE(child.standard_output().find("12 schedules: no violation found"), std::string::npos);
  EXPECT_NE(child.standard_error().find("[12/12] no violation: schedule 12 (seed 14)\n"),
            std::string::npos)
      << child.standard_error();
}

TEST(RetryproofCommand, DemoShowsTheDuplicateAndTheLookup) {
  ChildProcess child({kBinary, "demo"});
  EXPECT_EQ(run_to_end(child).code, 0) << child.standard_error();
  const std::string& out = child.standard_output();
  EXPECT_NE(out.find("jobs for order-A: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("jobs for order-B: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("jobs for order-B2: 2"), std::string::npos) << out;
  EXPECT_NE(out.find("jobs for order-C: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("LOOKUP job="), std::string::npos) << out;
}

}  // namespace
}  // namespace retryproof::scenarios
