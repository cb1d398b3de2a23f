// A killed client's request that the provider reads after the next invocation began is
// charged to the killed invocation, by its connection (scenarios/driver/attribution.hpp):
// a real provider on a real socket, and a client that is a real process killed by SIGKILL.
// Deterministic without a sleep: the client writes two requests on one connection in one
// write; the provider reads the second only once the first is answered, and the process
// world keeps that answer (the answer gate) from the kill point until the next invocation
// has begun. So the second request is read, always, after the next window opened.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "common/temp_dir.hpp"
#include "scenarios/driver/attribution.hpp"
#include "scenarios/process/process_world.hpp"
#include "scenarios/tests/catalog_runs.hpp"

namespace retryproof::scenarios {
namespace {

using catalog_runs::options_for;

// The first run sends two creates, keys first-a and first-b, in one write on one connection,
// then waits for the first answer, which it never gets: it is killed after its first request.
// A middle run waits until the provider has read the first run's second request, then sends
// one create (key middle) and waits for its answer. The last run sends one create (key last),
// waits until the provider has read the first run's second request, and says it does not
// know the outcome. The script's argument is how many runs there are.
constexpr const char* kClient = R"sh(#!/bin/bash
set -u
runs="$RETRYPROOF_STATE_DIR/runs"
n=$(cat "$runs" 2>/dev/null || echo 0)
echo $((n + 1)) > "$runs"
hostport="${RETRYPROOF_BASE_URL#http://}"
body='{"orderId":"order-1"}'
request() {
  printf 'POST /jobs HTTP/1.1\r\nHost: %s\r\nIdempotency-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$hostport" "$1" "${#body}" "$body"
}
# Waits until the provider has read the first run's second request. A deadline, not a sleep.
until_first_b_read() {
  for _ in $(seq 1000); do
    curl -sf "$RETRYPROOF_BASE_URL/_test/journal" | grep -q first-b && return
  done
}
exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
if [ "$n" -eq 0 ]; then
  # In one write(2): bash's printf writes a line at a time, and cat all it read at once.
  { request first-a; request first-b; } > "$RETRYPROOF_STATE_DIR/both"
  cat "$RETRYPROOF_STATE_DIR/both" >&3
  read -r status_line <&3
  exit 1
fi
if [ "$n" -lt $(($1 - 1)) ]; then
  until_first_b_read
  request middle >&3
  read -r status_line <&3
  exit 1
fi
request last >&3
read -r status_line <&3
# The run ends with this client, and what the provider has not read by then is not journaled.
until_first_b_read
echo '{"outcome":"unknown"}'
)sh";

// The scenario: `runs` runs of one operation, each but the last killed after its first request.
Scenario runs_killed_but_the_last(int runs) {
  nlohmann::json invocations = nlohmann::json::array();
  for (int i = 0; i < runs; ++i) {
    invocations.push_back({{"operation", "order-1"}});
    if (i + 1 < runs) invocations.back()["kill"] = "after-request:1";
  }
  return scenario_from_json(
      {{"name", "late-request"},
       {"description", "A run is killed with a request not yet read."},
       {"operations", {{{"id", "order-1"}, {"payload", {{"orderId", "order-1"}}}}}},
       {"invocations", invocations},
       {"client", {{"timeout", "5s"}}}},
      "late-request.json");
}

// The scenario run with the client above.
ScenarioResult run_with_the_client(int runs) {
  const TempDir scripts("retryproof-late-request");
  const auto script = scripts.path() / "client.sh";
  std::ofstream(script) << kClient;
  return run_scenario(runs_killed_but_the_last(runs),
                      options_for("cmd:bash " + script.string() + " " + std::to_string(runs)));
}

const provider::JournalEntry& entry_with_key(const ScenarioResult& result, const std::string& key) {
  const auto found = std::find_if(result.journal.begin(), result.journal.end(),
                                  [&](const auto& entry) { return entry.key == key; });
  if (found == result.journal.end()) throw std::logic_error("no request with key " + key);
  return *found;
}

TEST(LateRequest, AKilledClientsRequestReadAfterTheNextRunBeganIsChargedToTheKilledRun) {
  const ScenarioResult result = run_with_the_client(2);
  const std::string journal = nlohmann::json(result.journal).dump(1);

  ASSERT_EQ(result.invocations.size(), 2u);
  const InvocationResult& killed = result.invocations[0];
  const InvocationResult& next = result.invocations[1];
  ASSERT_TRUE(killed.killed) << killed.client_error << journal;

  const provider::JournalEntry& first = entry_with_key(result, "first-a");
  const provider::JournalEntry& late = entry_with_key(result, "first-b");
  const provider::JournalEntry& own = entry_with_key(result, "last");
  // The premise: the killed run's second request was read after the next run began, on the
  // connection its first came on.
  EXPECT_EQ(killed.first_seq, first.seq);
  EXPECT_EQ(killed.last_seq, first.seq) << journal;
  EXPECT_GE(late.seq, next.first_seq) << journal;
  ASSERT_TRUE(first.client_port && late.client_port && own.client_port) << journal;
  EXPECT_EQ(*late.client_port, *first.client_port);
  EXPECT_TRUE(first.new_connection);
  EXPECT_FALSE(late.new_connection);
  EXPECT_TRUE(own.new_connection);

  // It is the killed run's, and the next run is charged with its own request alone.
  EXPECT_EQ(killed.late_seqs, (std::vector<std::uint64_t>{late.seq})) << journal;
  EXPECT_TRUE(next.late_seqs.empty());
  const auto charged = charged_entries(result.journal, result.invocations, false);
  ASSERT_EQ(charged.size(), 2u);
  std::vector<std::uint64_t> next_seqs;
  for (const auto& entry : charged[1])
    next_seqs.push_back(entry.seq);
  EXPECT_EQ(next_seqs, (std::vector<std::uint64_t>{own.seq})) << journal;
}

// The next run may be killed too: the first run's late request, read in its window before it
// sent anything, is not its own, so it does not bring it to its kill point; only its own
// first request does.
TEST(LateRequest, AKilledRunsLateRequestDoesNotBringTheNextRunToItsKillPoint) {
  const ScenarioResult result = run_with_the_client(3);
  const std::string journal = nlohmann::json(result.journal).dump(1);

  ASSERT_EQ(result.invocations.size(), 3u);
  const InvocationResult& middle = result.invocations[1];
  ASSERT_TRUE(result.invocations[0].killed) << journal;
  ASSERT_TRUE(middle.killed) << middle.client_error << journal;
  const provider::JournalEntry& late = entry_with_key(result, "first-b");
  const provider::JournalEntry& own = entry_with_key(result, "middle");
  EXPECT_GE(late.seq, middle.first_seq) << journal;
  EXPECT_LE(late.seq, middle.last_seq) << journal;
  // Killed once its own request was seen, and charged with it alone.
  EXPECT_GE(own.seq, middle.first_seq) << journal;
  EXPECT_LE(own.seq, middle.last_seq) << journal;
  EXPECT_EQ(result.invocations[0].late_seqs, (std::vector<std::uint64_t>{late.seq})) << journal;
  const auto charged = charged_entries(result.journal, result.invocations, false);
  ASSERT_EQ(charged.at(1).size(), 1u) << journal;
  EXPECT_EQ(charged[1][0].seq, own.seq);
}

}  // namespace
}  // namespace retryproof::scenarios
