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
// The run after it sends one create with its own key, waits until the provider has read the
// killed run's second request, and says it does not know the outcome.
constexpr const char* kClient = R"sh(#!/bin/bash
set -u
hostport="${RETRYPROOF_BASE_URL#http://}"
body='{"orderId":"order-1"}'
request() {
  printf 'POST /jobs HTTP/1.1\r\nHost: %s\r\nIdempotency-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "$hostport" "$1" "${#body}" "$body"
}
if [ ! -e "$RETRYPROOF_STATE_DIR/first-ran" ]; then
  : > "$RETRYPROOF_STATE_DIR/first-ran"
  exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
  # In one write(2): bash's printf writes a line at a time, and cat all it read at once.
  { request first-a; request first-b; } > "$RETRYPROOF_STATE_DIR/both"
  cat "$RETRYPROOF_STATE_DIR/both" >&3
  read -r status_line <&3
  exit 1
fi
exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
request second >&3
read -r status_line <&3
# Not before the provider has read the killed run's second request: the run ends with this
# client, and what the provider has not read by then is not journaled. A deadline, not a sleep.
for _ in $(seq 1000); do
  curl -sf "$RETRYPROOF_BASE_URL/_test/journal" | grep -q first-b && break
done
echo '{"outcome":"unknown"}'
)sh";

Scenario two_runs_the_first_killed() {
  return scenario_from_json(nlohmann::json::parse(R"({
    "name": "late-request",
    "description": "The first run is killed with a request written and not yet read.",
    "operations": [{"id": "order-1", "payload": {"orderId": "order-1"}}],
    "invocations": [{"operation": "order-1", "kill": "after-request:1"}, {"operation": "order-1"}],
    "client": {"timeout": "5s"}
  })"),
                            "late-request.json");
}

const provider::JournalEntry& entry_with_key(const ScenarioResult& result, const std::string& key) {
  const auto found = std::find_if(result.journal.begin(), result.journal.end(),
                                  [&](const auto& entry) { return entry.key == key; });
  if (found == result.journal.end()) throw std::logic_error("no request with key " + key);
  return *found;
}

TEST(LateRequest, AKilledClientsRequestReadAfterTheNextRunBeganIsChargedToTheKilledRun) {
  const TempDir scripts("retryproof-late-request");
  const auto script = scripts.path() / "client.sh";
  std::ofstream(script) << kClient;

  const ScenarioResult result =
      run_scenario(two_runs_the_first_killed(), options_for("cmd:bash " + script.string()));
  const std::string journal = nlohmann::json(result.journal).dump(1);

  ASSERT_EQ(result.invocations.size(), 2u);
  const InvocationResult& killed = result.invocations[0];
  const InvocationResult& next = result.invocations[1];
  ASSERT_TRUE(killed.killed) << killed.client_error << journal;

  const provider::JournalEntry& first = entry_with_key(result, "first-a");
  const provider::JournalEntry& late = entry_with_key(result, "first-b");
  const provider::JournalEntry& own = entry_with_key(result, "second");
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

}  // namespace
}  // namespace retryproof::scenarios
