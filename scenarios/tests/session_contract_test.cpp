// SessionProcess against session clients that break the contract (docs/sessions.md), each
// a few lines of shell: garbage on standard output is reported line by line, and a client
// that is silent, does not read, or ends early costs the harness no more than its deadlines.
#include <gtest/gtest.h>
#include <signal.h>

#include "scenarios/process/session_process.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::map<std::string, std::string> kEnvironment = {
    {"RETRYPROOF_BASE_URL", "http://127.0.0.1:9"}, {"RETRYPROOF_SEED", "1"}};

SessionProcess shell(const std::string& script) {
  return SessionProcess({"/bin/sh", "-c", script}, kEnvironment);
}

// For each operation line: a line that is not JSON, an answer without an id, an answer for
// an id never sent, one whose outcome is no outcome, the real answer, and the same again.
TEST(SessionContract, EveryLineThatBreaksTheContractIsReportedWithItsNumberAndId) {
  SessionProcess session({"/bin/sh", "-c", R"sh(
    while IFS= read -r line; do
      id=$(printf '%s' "$line" | sed 's/^{"id":"\([^"]*\)".*/\1/')
      echo 'hello from the client'
      echo '{"outcome":"failed","reason":"no id"}'
      echo '{"id":"never-sent","outcome":"failed","reason":"x"}'
      echo "{\"id\":\"$id\",\"outcome\":\"maybe\"}"
      echo "{\"id\":\"$id\",\"outcome\":\"failed\",\"reason\":\"validation\"}"
      echo "{\"id\":\"$id\",\"outcome\":\"succeeded\",\"jobId\":\"job_2\"}"
    done)sh"},
                         kEnvironment);
  ASSERT_TRUE(session.send("g-1", "op-1", json::object()));
  EXPECT_TRUE(session.wait_for_outcomes({"g-1"}, Clock::now() + 30s).empty());
  session.close_input();
  ASSERT_TRUE(session.wait_for_exit(Clock::now() + 30s)) << session.standard_error();

  const auto outcome = session.outcome("g-1");
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->line.outcome, Reported::failed);  // the first valid answer is its answer
  const std::vector<ContractError> errors = session.contract_errors();
  ASSERT_EQ(errors.size(), 5u) << session.standard_error();
  const std::vector<std::tuple<std::size_t, std::string, std::string>> expected = {
      {1, "", "not a JSON object"},
      {2, "", "an outcome line without its \"id\" (a string)"},
      {3, "never-sent", "an id that was never sent"},
      {4, "g-1", "\"outcome\" must be succeeded, failed or unknown"},
      {6, "g-1", "a second outcome for this id"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& [line, id, problem] = expected[i];
    EXPECT_EQ(errors[i].instance, 1);
    EXPECT_EQ(errors[i].line, line);
    EXPECT_EQ(errors[i].id, id) << errors[i].text;
    EXPECT_NE(errors[i].problem.find(problem), std::string::npos) << errors[i].problem;
  }
  EXPECT_EQ(errors[0].describe(), "instance 1, line 1: not a JSON object: hello from the client");
  EXPECT_EQ(errors[2].describe(),
            "instance 1, line 3, id \"never-sent\": an id that was never sent: "
            R"({"id":"never-sent","outcome":"failed","reason":"x"})");
}

// It reads every line and answers none, its output open: the wait ends at its deadline, not
// later. (A client whose output is closed cannot answer: the wait ends at once.)
TEST(SessionContract, ASilentClientCostsTheHarnessItsDeadlineAndNoMore) {
  SessionProcess session = shell("while read -r line; do :; done");
  for (const char* id : {"s-1", "s-2", "s-3"})
    ASSERT_TRUE(session.send(id, std::string("op-") + id, json::object()));
  const auto asked = Clock::now();
  const auto missing = session.wait_for_outcomes({"s-1", "s-2", "s-3"}, asked + 300ms);
  const auto waited = Clock::now() - asked;
  EXPECT_EQ(missing, (std::vector<std::string>{"s-1", "s-2", "s-3"}));
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 5s);
  EXPECT_TRUE(session.alive());
}

// It never reads: once the pipe is full, a send gives up at its deadline; the process is
// killed and reaped, and no SIGPIPE or full pipe ever reaches the harness.
TEST(SessionContract, AClientThatDoesNotReadCannotHoldASendPastItsDeadline) {
  SessionProcess session = shell("exec sleep 600");
  const json big = {{"filler", std::string(16 * 1024, 'x')}};
  bool refused = false;
  const auto started = Clock::now();
  for (int n = 0; n < 64 && !refused; ++n)  // a pipe holds 64 KiB unless the system says more
    refused = !session.send("big-" + std::to_string(n), "op", big, 200ms);
  EXPECT_TRUE(refused);
  EXPECT_LT(Clock::now() - started, 10s);
  EXPECT_FALSE(session.wait_for_exit(Clock::now() + 100ms));  // it still runs
  session.kill();
  EXPECT_FALSE(session.alive());
  const auto status = session.wait_for_exit(Clock::now());
  ASSERT_TRUE(status);
  EXPECT_EQ(status->signal, SIGKILL);
}

// It reads one line and exits: the wait for its answer ends when it does, and the next
// instance (told its number) is given the operation again by its caller.
TEST(SessionContract, AnInstanceThatEndsEndsTheWaitAndIsRestartedWithItsNumber) {
  SessionProcess session = shell(R"sh(
    read -r line
    [ "$RETRYPROOF_INSTANCE" = 1 ] && exit 3
    read -r line
    echo "{\"id\":\"again-1\",\"outcome\":\"failed\",\"reason\":\"$RETRYPROOF_SESSION/$RETRYPROOF_INSTANCE\"}")sh");
  ASSERT_TRUE(session.send("first-1", "op-1", json::object()));
  const auto asked = Clock::now();
  EXPECT_EQ(session.wait_for_outcomes({"first-1"}, asked + 60s),
            std::vector<std::string>{"first-1"});
  EXPECT_LT(Clock::now() - asked, 30s);
  const auto status = session.wait_for_exit(Clock::now() + 10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "exit code 3");
  EXPECT_FALSE(session.send("late-1", "op-2", json::object()));  // EPIPE, and the harness lives

  EXPECT_EQ(session.restart(), (std::vector<std::string>{"first-1", "late-1"}));
  EXPECT_EQ(session.restart(), std::vector<std::string>{});  // returned once
  ASSERT_TRUE(session.send("x-1", "op-1", json::object()));
  ASSERT_TRUE(session.send("again-1", "op-1", json::object()));
  EXPECT_TRUE(session.wait_for_outcomes({"again-1"}, Clock::now() + 30s).empty());
  const auto outcome = session.outcome("again-1");
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->instance, 3);
  EXPECT_EQ(outcome->line.line["reason"], "1/3");
}

// Its standard error is kept beside its answers, instance by instance.
TEST(SessionContract, ALastLineWithoutItsNewlineIsStillItsWord) {
  SessionProcess session = shell(
      R"sh(read -r line; echo 'a word to stderr' >&2; printf '{"id":"n-1","outcome":"unknown","reason":"r"}')sh");
  ASSERT_TRUE(session.send("n-1", "op-1", json::object()));
  EXPECT_TRUE(session.wait_for_outcomes({"n-1"}, Clock::now() + 30s).empty());
  const auto outcome = session.outcome("n-1");
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->line.outcome, Reported::unknown);
  ASSERT_TRUE(session.wait_for_exit(Clock::now() + 30s));
  EXPECT_EQ(session.standard_error(), "--- instance 1\na word to stderr\n");
  EXPECT_TRUE(session.contract_errors().empty());
}

TEST(SessionContract, AnIdIsSentOnceAndTheOperationIsNotAnEnvironmentVariable) {
  SessionProcess session = shell("exec cat >/dev/null");
  ASSERT_TRUE(session.send("d-1", "op-1", json::object()));
  EXPECT_THROW(session.send("d-1", "op-1", json::object()), std::invalid_argument);
  EXPECT_THROW(SessionProcess({"/bin/true"}, {{"RETRYPROOF_OPERATION", "{}"}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace retryproof::scenarios
