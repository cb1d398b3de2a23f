// A real client process killed right after the provider commits, then run again with
// the same state directory: the durable intent makes the rerun look before it sends.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "client_under_test/intent_ledger.hpp"
#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::client {
namespace {

using nlohmann::json;
using scenarios::ChildProcess;
using namespace std::chrono_literals;

std::vector<std::string> client_command(const provider::ProviderServer& server,
                                        const TempDir& state, const std::string& mutant) {
  std::vector<std::string> argv = {RETRYPROOF_BINARY, "client",
                                   "--base-url",      server.base_url(),
                                   "--operation-id",  "fulfillment:order-42",
                                   "--payload",       R"({"orderId":"order-42"})",
                                   "--state-dir",     state.path().string(),
                                   "--timeout",       "60s",
                                   "--base-delay",    "10ms",
                                   "--seed",          "1"};
  if (!mutant.empty()) argv.insert(argv.end(), {"--mutant", mutant});
  return argv;
}

// Runs the client until the provider has committed its job, then kills it with SIGKILL.
void run_and_kill_after_commit(provider::ProviderServer& server, const TempDir& state,
                               const std::string& mutant) {
  ChildProcess first(client_command(server, state, mutant));
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (server.core().job_count() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(server.core().job_count(), 1u) << first.standard_error();
  first.send_signal(SIGKILL);
  const auto status = first.wait(10s);
  ASSERT_TRUE(status);
  ASSERT_EQ(status->signal, SIGKILL);
}

json rerun(provider::ProviderServer& server, const TempDir& state, const std::string& mutant) {
  ChildProcess second(client_command(server, state, mutant));
  const auto line = second.read_line(30s);
  EXPECT_TRUE(line) << second.standard_error();
  return line ? json::parse(*line, nullptr, false) : json();
}

TEST(CrashRecovery, TheRerunLooksUpBeforeSendingAndFindsTheOneJob) {
  // The provider commits at once and holds the response, so the kill lands after the commit.
  provider::ProviderServer server(
      {.initial_plan = provider::FaultPlan::from_json({{"faults", {"commit-then-delay:60s"}}})},
      {.port = 0});
  TempDir state;
  run_and_kill_after_commit(server, state, "");

  // The intent survived the kill, marked as sent.
  const auto intent =
      SqliteIntentLedger(state.path() / "intents.sqlite").find("fulfillment:order-42");
  ASSERT_TRUE(intent);
  EXPECT_EQ(intent->status, IntentStatus::sent);

  const json outcome = rerun(server, state, "");
  const json jobs = server.core().jobs_json();
  ASSERT_EQ(jobs["count"], 1);
  EXPECT_EQ(outcome, json({{"outcome", "succeeded"}, {"jobId", jobs["jobs"][0]["id"]}}));
  const json entries = server.core().journal_json()["entries"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1]["method"], "GET");  // the rerun's first request is a lookup
  EXPECT_EQ(entries[1]["outcome"], "lookup_hit");
}

TEST(CrashRecovery, AConfirmedIntentIsReportedWithoutARequest) {
  provider::ProviderServer server({}, {.port = 0});
  TempDir state;
  EXPECT_EQ(rerun(server, state, "")["outcome"], "succeeded");
  EXPECT_EQ(rerun(server, state, "")["outcome"], "succeeded");
  EXPECT_EQ(server.core().journal_json()["count"], 1);  // the second run sent nothing
}

TEST(CrashRecovery, TheMemoryOnlyMutantDuplicatesTheJobAfterTheSameKill) {
  provider::ProviderServer server(
      {.initial_plan = provider::FaultPlan::from_json({{"faults", {"commit-then-delay:60s"}}})},
      {.port = 0});
  TempDir state;
  run_and_kill_after_commit(server, state, "memory-only-intent");
  const json outcome = rerun(server, state, "memory-only-intent");
  EXPECT_EQ(outcome["outcome"], "succeeded");
  EXPECT_EQ(server.core().job_count(), 2u);  // the bug the harness must catch
}

}  // namespace
}  // namespace retryproof::client
