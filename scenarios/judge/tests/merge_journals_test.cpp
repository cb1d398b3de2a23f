// Several journals judged as one fleet: merged in time order, renumbered, each entry's origin
// kept, and a duplicate that only the two journals together show is caught.
#include "scenarios/judge/merge_journals.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "provider/provider_core.hpp"
#include "scenarios/judge/tests/orders.hpp"

namespace retryproof::scenarios {
namespace {

using judge_orders::kOrder1;
using judge_orders::kOrder2;
using nlohmann::json;
using provider::JournalEntry;

// One service instance's journal: a provider core of its own (seeded apart, so that two
// instances do not mint the same job ids) that records orderId; creates at the given times.
struct Create {
  int at;
  std::string key;
  json payload;
};
std::vector<JournalEntry> instance(std::uint64_t seed, const std::vector<Create>& creates) {
  provider::ProviderCore core({.seed = seed, .operation_field = "orderId"});
  for (const auto& [at, key, payload] : creates) {
    provider::HttpRequest request{.method = "POST", .path = "/jobs", .body = payload.dump()};
    request.headers.emplace("Idempotency-Key", key);
    core.handle(request, Millis(at));
  }
  return core.journal();
}

std::vector<std::uint64_t> seqs(const std::vector<JournalEntry>& journal) {
  std::vector<std::uint64_t> result;
  for (const JournalEntry& entry : journal)
    result.push_back(entry.seq);
  return result;
}

TEST(MergeJournals, OrdersByArrivalThenByFileAndRenumbers) {
  const auto a = instance(1, {{100, "a1", kOrder1}, {300, "a2", kOrder2}});
  const auto b = instance(2, {{100, "b1", kOrder2}, {200, "b2", kOrder1}});
  const MergedJournal merged = merge_journals({{"a.json", a}, {"b.json", b}});
  EXPECT_EQ(seqs(merged.entries), (std::vector<std::uint64_t>{1, 2, 3, 4}));
  std::vector<std::string> keys;
  for (const JournalEntry& entry : merged.entries)
    keys.push_back(entry.key.value_or(""));
  // At 100 ms both: the first file's first.
  EXPECT_EQ(keys, (std::vector<std::string>{"a1", "b1", "b2", "a2"}));
  ASSERT_EQ(merged.origins.size(), 4u);
  EXPECT_EQ(merged.origins[0].journal, 1);
  EXPECT_EQ(merged.origins[0].seq, 1u);
  EXPECT_EQ(merged.origins[1].journal, 2);
  EXPECT_EQ(merged.origins[1].seq, 1u);
  EXPECT_EQ(merged.origins[2].journal, 2);
  EXPECT_EQ(merged.origins[2].seq, 2u);
  EXPECT_EQ(merged.origins[3].journal, 1);
  EXPECT_EQ(merged.origins[3].seq, 2u);
}

TEST(MergeJournals, ATwiceUsedSeqNamesItsFile) {
  auto a = instance(1, {{100, "a1", kOrder1}, {200, "a2", kOrder2}});
  a[1].seq = 1;
  try {
    merge_journals({{"ok.json", instance(2, {{100, "b", kOrder1}})}, {"twice.json", a}});
    FAIL() << "a repeated seq was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "twice.json: two entries have seq 1: a journal numbers its requests once each");
  }
}

// Two instances each made one job for order o-1: neither journal alone shows a duplicate.
TEST(JudgeJournals, ADuplicateAcrossInstancesIsCaughtAndCitedBackToItsFiles) {
  const auto a = instance(1, {{100, "a1", kOrder1}});
  const auto b = instance(2, {{150, "b1", kOrder1}, {200, "b2", kOrder2}});
  const TrafficOptions options{.operation_field = "orderId"};
  for (const auto& alone : {a, b}) {
    const ScenarioResult result = judge_journals({{"x.json", alone}}, options);
    EXPECT_EQ(result.verdicts.front().id, "no-duplicate-effect");
    EXPECT_EQ(to_string(result.verdicts.front().status), "pass");
    EXPECT_TRUE(result.origins.empty()) << "one journal keeps its own seqs";
    EXPECT_EQ(result.concurrency, 1);
  }
  const ScenarioResult fleet = judge_journals({{"a.json", a}, {"b.json", b}}, options);
  const Verdict& duplicate = fleet.verdicts.front();
  ASSERT_EQ(duplicate.id, "no-duplicate-effect");
  EXPECT_EQ(to_string(duplicate.status), "fail") << duplicate.explanation;
  EXPECT_EQ(duplicate.evidence, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(fleet.concurrency, 2);
  EXPECT_EQ(fleet.journal_files, (std::vector<std::string>{"a.json", "b.json"}));
  ASSERT_EQ(fleet.origins.size(), 3u);
  EXPECT_EQ(fleet.origins[1].journal, 2);
  EXPECT_TRUE(fleet.description.find("journal 1 a.json (1 requests), journal 2 b.json (2 "
                                     "requests)") != std::string::npos)
      << fleet.description;
  // The operator's numbers: two operations, both made a job, one of them twice.
  ASSERT_TRUE(fleet.numbers);
  EXPECT_EQ(fleet.numbers->operations, 2);
  EXPECT_EQ(fleet.numbers->succeeded, 2);
  EXPECT_EQ(fleet.numbers->duplicated, 1);
}

}  // namespace
}  // namespace retryproof::scenarios
