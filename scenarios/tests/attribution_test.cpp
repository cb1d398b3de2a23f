// Which invocation each request is charged to (scenarios/driver/attribution.hpp): by the
// connection it came on, so that a killed client's request read after its window closed is
// its own, never the next client's.
#include "scenarios/driver/attribution.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;

JournalEntry on(std::uint64_t seq, std::optional<int> client_port, bool first) {
  return JournalEntry{.seq = seq,
                      .method = "POST",
                      .path = "/jobs",
                      .client_port = client_port,
                      .new_connection = first};
}

InvocationResult window(int index, std::uint64_t first, std::uint64_t last) {
  return InvocationResult{.index = index, .first_seq = first, .last_seq = last};
}

// Each invocation's charged seqs.
std::vector<std::vector<std::uint64_t>> seqs(const std::vector<JournalEntry>& journal,
                                             std::vector<InvocationResult>& invocations) {
  const auto charged = charged_entries(journal, invocations, false);
  record_charges(charged, invocations, false);
  std::vector<std::vector<std::uint64_t>> out;
  for (const auto& entries : charged) {
    out.emplace_back();
    for (const JournalEntry& entry : entries)
      out.back().push_back(entry.seq);
  }
  return out;
}

using Seqs = std::vector<std::vector<std::uint64_t>>;

TEST(Attribution, ALateRequestOnAKilledClientsConnectionIsItsOwn) {
  // Invocation 1 opened port 40001 and was killed after seq 1; seq 3 came on that connection
  // inside invocation 2's window, beside invocation 2's own request on port 40003.
  const std::vector<JournalEntry> journal = {on(1, 40001, true), on(2, 40003, true),
                                             on(3, 40001, false), on(4, 40003, false)};
  std::vector<InvocationResult> invocations = {window(0, 1, 1), window(1, 2, 4)};
  EXPECT_EQ(seqs(journal, invocations), (Seqs{{1, 3}, {2, 4}}));
  EXPECT_EQ(invocations[0].late_seqs, (std::vector<std::uint64_t>{3}));
  EXPECT_TRUE(invocations[1].late_seqs.empty());
}

TEST(Attribution, AConnectionOpenedBetweenTwoWindowsIsTheLastClients) {
  // Seq 2 was journaled after invocation 1 was reaped and before invocation 2 started: no
  // client ran then, so only the one that ran last can have opened its connection.
  const std::vector<JournalEntry> journal = {on(1, 40001, true), on(2, 40002, true),
                                             on(3, 40003, true), on(4, 40002, false)};
  std::vector<InvocationResult> invocations = {window(0, 1, 1), window(1, 3, 4)};
  EXPECT_EQ(seqs(journal, invocations), (Seqs{{1, 2, 4}, {3}}));
  EXPECT_EQ(invocations[0].late_seqs, (std::vector<std::uint64_t>{2, 4}));
}

TEST(Attribution, AReusedPortStartsANewConnectionAtItsFirstRequest) {
  // The operating system gave invocation 2 the port invocation 1's connection had: the
  // request marked new is the next client's.
  const std::vector<JournalEntry> journal = {on(1, 40001, true), on(2, 40001, false),
                                             on(3, 40001, true), on(4, 40001, false)};
  std::vector<InvocationResult> invocations = {window(0, 1, 2), window(1, 3, 4)};
  EXPECT_EQ(seqs(journal, invocations), (Seqs{{1, 2}, {3, 4}}));
}

TEST(Attribution, APortNotSeenBeforeOpensAConnectionEvenUnmarked) {
  // Its first request was a control call, which is not journaled.
  const std::vector<JournalEntry> journal = {on(1, 40001, true), on(2, 40002, false)};
  std::vector<InvocationResult> invocations = {window(0, 1, 1), window(1, 2, 2)};
  EXPECT_EQ(seqs(journal, invocations), (Seqs{{1}, {2}}));
}

TEST(Attribution, AnEntryWithoutAConnectionIsChargedByItsWindowAlone) {
  const std::vector<JournalEntry> journal = {on(1, std::nullopt, false), on(2, std::nullopt, false),
                                             on(3, std::nullopt, false)};
  std::vector<InvocationResult> invocations = {window(0, 1, 1), window(1, 3, 3)};
  // Seq 2 fell between the windows and names no connection: no client is charged with it.
  EXPECT_EQ(seqs(journal, invocations), (Seqs{{1}, {3}}));
}

TEST(Attribution, AFleetClientsEntriesAreThoseOnItsListener) {
  std::vector<JournalEntry> journal = {on(1, 1, true), on(2, 2, true), on(3, 1, false)};
  journal[0].port = 9001;
  journal[1].port = 9002;
  journal[2].port = 9001;
  std::vector<InvocationResult> invocations = {window(0, 1, 0), window(1, 1, 0)};
  invocations[0].port = 9001;
  invocations[1].port = 9002;
  const auto charged = charged_entries(journal, invocations, true);
  record_charges(charged, invocations, true);
  EXPECT_EQ(invocations[0].first_seq, 1U);
  EXPECT_EQ(invocations[0].last_seq, 3U);
  EXPECT_EQ(invocations[1].first_seq, 2U);
  EXPECT_EQ(invocations[1].last_seq, 2U);
}

// Under traffic a session's operations share its connections, and a rerun after its instance
// was killed carries what the killed run carried (the operation's key and field): it is told
// apart by the connections it opened, after it began. What the dead process had written, read
// late on its old connection, stays the killed run's.
TEST(Attribution, AKilledRunAndItsRerunAreToldApartByTheConnectionsEachOpened) {
  const auto create = [](std::uint64_t seq, int client_port, bool first) {
    JournalEntry entry = on(seq, client_port, first);
    entry.kind = provider::RequestKind::create;
    entry.key = "fulfillment:traffic-1";
    entry.operation = "order-1";
    return entry;
  };
  JournalEntry lookup = create(5, 40009, true);
  lookup.kind = provider::RequestKind::lookup;
  lookup.operation.reset();
  // Seqs 1 and 4 on the killed process's connection (4 read after the rerun began), 2 another
  // operation's, 5 the rerun's lookup on the new process's connection.
  JournalEntry other = create(2, 40001, false);
  other.key = "fulfillment:traffic-2";
  other.operation = "order-2";
  const std::vector<JournalEntry> journal = {create(1, 40001, true), other, on(3, 40001, false),
                                             create(4, 40001, false), lookup};
  const std::vector<InvocationResult> invocations = {
      {.index = 0,
       .operation = "fulfillment:traffic-1",
       .payload = {{"orderId", "order-1"}},
       .killed = true},
      {.index = 1, .operation = "fulfillment:traffic-2", .payload = {{"orderId", "order-2"}}},
      {.index = 2,
       .operation = "fulfillment:traffic-1",
       .payload = {{"orderId", "order-1"}},
       .first_seq = 4,
       .rerun_of = 0}};
  const auto charged = charged_by_operation(journal, invocations, "orderId");
  Seqs charged_seqs;
  for (const auto& entries : charged) {
    charged_seqs.emplace_back();
    for (const JournalEntry& entry : entries)
      charged_seqs.back().push_back(entry.seq);
  }
  EXPECT_EQ(charged_seqs, (Seqs{{1, 4}, {2}, {5}}));

  // Over HTTP the killed process had just opened 40011 and written a create on it, which the
  // provider read only after the rerun began: the harness named 40011 among the dead process's
  // connections, so it stays the killed run's.
  std::vector<JournalEntry> late = journal;
  late.insert(late.begin() + 4, create(5, 40011, true));
  late.back().seq = 6;
  std::vector<InvocationResult> named = invocations;
  named[2].dead_connections = {40001, 40011};
  Seqs late_seqs;
  for (const auto& entries : charged_by_operation(late, named, "orderId")) {
    late_seqs.emplace_back();
    for (const JournalEntry& entry : entries)
      late_seqs.back().push_back(entry.seq);
  }
  EXPECT_EQ(late_seqs, (Seqs{{1, 4, 5}, {2}, {6}}));
}

}  // namespace
}  // namespace retryproof::scenarios
