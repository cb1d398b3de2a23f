// The session contract end to end (docs/sessions.md): each session client (the reference
// client's `client --session`, and the Python, Node and C++ examples on their helpers) runs
// as a real instance against a provider on a real socket, through SessionProcess. Twenty
// operations at once, answered once each, twenty jobs; an instance killed with answers
// still owed, restarted, and the operations resent: still one job each. Then the harness
// against clients that break the contract: garbage, silence, a process that does not read.
#include "scenarios/process/session_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <set>

#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

bool installed(const std::string& program) {
  ChildProcess probe({"/bin/sh", "-c", "command -v " + program});
  const auto status = probe.wait(10s);
  return status && status->exited() && status->code == 0;
}

struct SessionClient {
  std::string name;
  std::vector<std::string> argv;
  std::string interpreter;  // skipped where it is not installed; empty: built here
};

// Its name, not its bytes, in a failure's message.
void PrintTo(const SessionClient& client, std::ostream* out) {
  *out << client.name;
}

std::vector<SessionClient> session_clients() {
  return {{"Reference", {RETRYPROOF_BINARY, "client", "--session"}, ""},
          // Told by RETRYPROOF_SESSION alone, as the harness's environment tells it.
          {"ReferenceByEnvironment", {RETRYPROOF_BINARY, "client"}, ""},
          {"Python", {"python3", EXAMPLES_DIR "/python/session_client.py"}, "python3"},
          {"Node", {"node", EXAMPLES_DIR "/node/session_client.mjs"}, "node"},
          {"Cpp", {SESSION_CLIENT_EXAMPLE}, ""}};
}

// The per-invocation contract's variables but RETRYPROOF_OPERATION. A long request timeout:
// the provider's holds here must never look like a lost answer on a loaded machine.
std::map<std::string, std::string> contract_environment(const provider::ProviderServer& server,
                                                        const TempDir& state) {
  return {
      {"RETRYPROOF_BASE_URL", server.base_url()},
      {"RETRYPROOF_STATE_DIR", state.path().string()},
      {"RETRYPROOF_SEED", "7"},
      {"RETRYPROOF_CLIENT",
       R"({"attempts":3,"timeoutMs":10000,"baseDelayMs":50,"maxDelayMs":200,"timeLimitMs":60000})"}};
}

std::string numbered(const std::string& prefix, int n) {
  std::string digits = std::to_string(n);
  return prefix + std::string(6 - std::min<std::size_t>(6, digits.size()), '0') + digits;
}
std::string operation_of(int n) {
  return numbered("op-", n);
}
json payload_of(int n) {
  return {{"orderId", "order-" + std::to_string(n)}};
}

// The most creates the provider held at once: arrivals and answers swept in time order.
int most_creates_at_once(const std::vector<provider::JournalEntry>& journal) {
  std::vector<std::pair<Millis, int>> events;
  for (const provider::JournalEntry& entry : journal) {
    if (entry.kind != provider::RequestKind::create || !entry.answered_at) continue;
    events.emplace_back(entry.at, 1);
    events.emplace_back(*entry.answered_at, -1);
  }
  std::sort(events.begin(), events.end());  // at one moment, an answer before an arrival
  int now = 0;
  int most = 0;
  for (const auto& [at, change] : events)
    most = std::max(most, now += change);
  return most;
}

// The job the provider holds for each key.
std::map<std::string, std::string> jobs_by_key(provider::ProviderServer& server) {
  std::map<std::string, std::string> jobs;
  const json document = server.core().jobs_json();  // kept: the loop reads into it
  for (const json& job : document["jobs"])
    jobs[job["key"]] = job["id"];
  return jobs;
}

class SessionClients : public testing::TestWithParam<SessionClient> {
 protected:
  void SetUp() override {
    if (!GetParam().interpreter.empty() && !installed(GetParam().interpreter))
      GTEST_SKIP() << GetParam().interpreter << " is not installed";
  }
};

// Each create is held 300 ms, so twenty sent at once are in flight together only if the
// client runs them concurrently: one that serves them one by one holds one at a time.
TEST_P(SessionClients, ServeTwentyOperationsAtOnceEachAnsweredOnceWithItsOwnJob) {
  provider::ProviderServer server(
      {.initial_plan = provider::FaultPlan::from_json(
           {{"outages", {{{"from", "0s"}, {"for", "600s"}, {"fault", "slowdown:300ms"}}}}})},
      {.port = 0});
  const TempDir state;
  SessionProcess session(GetParam().argv, contract_environment(server, state));
  std::vector<std::string> ids;
  for (int n = 1; n <= 20; ++n) {
    ids.push_back(numbered("a-", n));
    ASSERT_TRUE(session.send(ids.back(), operation_of(n), payload_of(n)));
  }
  EXPECT_EQ(session.wait_for_outcomes(ids, Clock::now() + 60s), std::vector<std::string>{})
      << session.standard_error();

  std::set<std::string> answered_jobs;
  for (const std::string& id : ids) {
    const auto outcome = session.outcome(id);
    ASSERT_TRUE(outcome) << id;
    EXPECT_EQ(outcome->line.outcome, Reported::succeeded) << outcome->line.line.dump();
    answered_jobs.insert(outcome->line.job_id);
  }
  EXPECT_TRUE(session.contract_errors().empty()) << session.contract_errors().front().problem;
  EXPECT_EQ(server.core().job_count(), 20u);
  EXPECT_EQ(answered_jobs.size(), 20u);
  EXPECT_GE(most_creates_at_once(server.core().journal()), 5) << session.standard_error();

  session.close_input();  // end of input: it has nothing in flight, so it exits, 0
  const auto status = session.wait_for_exit(Clock::now() + 30s);
  ASSERT_TRUE(status) << session.standard_error();
  EXPECT_EQ(status->describe(), "exit code 0");
}

// Three operations commit and are held unanswered; the instance is killed, and the next one
// gets them again under new ids. Each rerun answers with the job its first run made.
TEST_P(SessionClients, AKilledInstancesRerunsFindTheirJobsByKeyAndMakeNoSecond) {
  json faults = json::array();
  for (const int held : {2, 5, 8}) {
    faults.push_back({{"fault", "commit-then-delay:60s"}, {"match", payload_of(held)}});
  }
  provider::ProviderServer server(
      {.initial_plan = provider::FaultPlan::from_json({{"faults", faults}})}, {.port = 0});
  const TempDir state;
  SessionProcess session(GetParam().argv, contract_environment(server, state));
  std::vector<std::string> answered;
  for (int n = 1; n <= 10; ++n) {
    ASSERT_TRUE(session.send(numbered("a-", n), operation_of(n), payload_of(n)));
    if (n != 2 && n != 5 && n != 8) answered.push_back(numbered("a-", n));
  }
  EXPECT_EQ(session.wait_for_outcomes(answered, Clock::now() + 60s), std::vector<std::string>{})
      << session.standard_error();
  ASSERT_TRUE(server.core().wait_until([](const auto& seen) { return seen.jobs == 10; },
                                       Clock::now() + 30s));

  // Killed as a kill under traffic kills it: what it holds named first. The three held
  // creates' connections are among them, as the provider saw them.
  const std::set<int> held = session.kill_naming_connections();
  EXPECT_FALSE(session.alive());
  for (const provider::JournalEntry& entry : server.core().journal()) {
    const bool held_create = entry.kind == provider::RequestKind::create && entry.operation &&
                             (*entry.operation == "order-2" || *entry.operation == "order-5" ||
                              *entry.operation == "order-8");
    if (!held_create) continue;
    ASSERT_TRUE(entry.client_port.has_value());
    EXPECT_TRUE(held.contains(*entry.client_port)) << "seq " << entry.seq;
  }
  const std::vector<std::string> unanswered = session.restart();
  EXPECT_EQ(unanswered, (std::vector<std::string>{"a-000002", "a-000005", "a-000008"}));
  EXPECT_EQ(session.instance(), 2);
  std::vector<std::string> reruns;
  for (const int n : {2, 5, 8}) {
    reruns.push_back(numbered("b-", n));
    ASSERT_TRUE(session.send(reruns.back(), operation_of(n), payload_of(n)));
  }
  EXPECT_EQ(session.wait_for_outcomes(reruns, Clock::now() + 60s), std::vector<std::string>{})
      << session.standard_error();

  const std::map<std::string, std::string> jobs = jobs_by_key(server);
  EXPECT_EQ(jobs.size(), 10u);
  for (const int n : {2, 5, 8}) {
    const auto outcome = session.outcome(numbered("b-", n));
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->instance, 2);
    EXPECT_EQ(outcome->line.job_id, jobs.at(operation_of(n))) << outcome->line.line.dump();
  }
  EXPECT_TRUE(session.contract_errors().empty()) << session.contract_errors().front().problem;
  EXPECT_EQ(server.core().job_count(), 10u);
}

INSTANTIATE_TEST_SUITE_P(Session, SessionClients, testing::ValuesIn(session_clients()),
                         [](const auto& instance) { return instance.param.name; });

}  // namespace
}  // namespace retryproof::scenarios
