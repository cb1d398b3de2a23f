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

}  // namespace
}  // namespace retryproof::scenarios
