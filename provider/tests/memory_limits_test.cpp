// The provider's memory bounds, on the core: --max-keys refuses exactly the new operation
// past it with 507 while replays and lookups work on; expired keys are freed; a missed
// lookup costs no per-key memory; a spilled journal still reads back whole.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "common/temp_dir.hpp"
#include "provider/attempt_counts.hpp"
#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using namespace provider::testing;

using namespace std::chrono_literals;

// GET /_test/journal?QUERY, which must answer 200.
json journal_page(ProviderCore& core, const std::string& query) {
  HttpRequest request = make_request("GET", "/_test/journal");
  request.query = query;
  const Decision decision = core.handle(request, Millis{0});
  EXPECT_EQ(decision.status, 200) << decision.body;
  return body_of(decision);
}

ProviderConfig bounded(std::size_t max_keys, std::optional<Millis> ttl = std::nullopt) {
  ProviderConfig config = config_with(7);
  config.max_keys = max_keys;
  config.key_ttl = ttl;
  return config;
}

TEST(MemoryLimits, TheNewKeyPastMaxKeysIs507AndReplaysAndLookupsWorkOn) {
  ProviderCore core(bounded(3));
  for (const char* key : {"k1", "k2", "k3"})
    ASSERT_EQ(post(core, key, kOrder42).status, 201);

  const Decision refused = post(core, "k4", kOrder42);
  EXPECT_EQ(refused.status, 507);
  EXPECT_EQ(body_of(refused)["error"], "capacity_exhausted") << refused.body;
  EXPECT_EQ(post(core, "k1", kOrder42).status, 200);  // a replay
  EXPECT_EQ(lookup(core, "k2").status, 200);
  EXPECT_EQ(lookup(core, "k4").status, 404);
  EXPECT_EQ(stored_count(core), 3U);

  const json entries = journal_entries(core);
  EXPECT_EQ(entries[3]["outcome"], "capacity_exhausted");
  EXPECT_EQ(entries[3]["status"], 507);
  EXPECT_TRUE(entries[3]["jobId"].is_null());
  EXPECT_TRUE(entries[3]["fault"].is_null()) << "a refusal draws no fault from the plan";
}

TEST(MemoryLimits, AHeldRequestHoldsItsPlaceUnderMaxKeys) {
  ProviderCore core(bounded(2));
  install(core, {"delay-before-commit:1s"});
  const Decision held = post(core, "k1", kOrder42);
  ASSERT_TRUE(held.pending_commit.has_value());
  EXPECT_EQ(post(core, "k2", kOrder42).status, 201);
  EXPECT_EQ(post(core, "k3", kOrder42).status, 507);
  EXPECT_EQ(core.complete(*held.pending_commit, Millis{1000}).status, 201);
  EXPECT_EQ(stored_count(core), 2U);
}

TEST(MemoryLimits, AtMaxKeysTheJobsOfExpiredKeysAreFreedOldestFirst) {
  ProviderCore core(bounded(2, 1h));
  post(core, "k1", kOrder42, Millis{0});
  post(core, "k2", kOrder42, Millis{10});
  EXPECT_EQ(post(core, "k3", kOrder42, Millis{20}).status, 507) << "nothing has expired yet";

  EXPECT_EQ(post(core, "k3", kOrder42, 1h + Millis{5}).status, 201);  // k1 expired
  const json jobs = jobs_of(core);
  EXPECT_EQ(jobs["count"], 2);
  EXPECT_EQ(jobs["freed"], 1);
  EXPECT_EQ(jobs["jobs"][0]["key"], "k2");
  EXPECT_EQ(core.retention().freed_jobs, 1U);
}

TEST(MemoryLimits, AFreedJobTakesItsKeysAttemptCountsAlong) {
  ProviderCore core(bounded(1, 1h));
  const Decision chaos = call(core, "POST", "/_test/faults",
                              R"({"chaos":{"seed":1,"rates":{"fail-before-commit":0.01}}})");
  ASSERT_EQ(chaos.status, 200) << chaos.body;
  ASSERT_EQ(post(core, "k1", kOrder42, Millis{0}).status, 201);
  EXPECT_EQ(core.retention().counted_keys, 1U);
  ASSERT_EQ(post(core, "k2", kOrder42, 2h).status, 201);  // frees k1's job
  EXPECT_EQ(core.retention().freed_jobs, 1U);
  EXPECT_EQ(core.retention().counted_keys, 1U) << "k1's count went with its job";
}

TEST(MemoryLimits, ExpiredKeysLeaveTheIndexThoughTheirJobsStayAsEvidence) {
  ProviderCore core(config_with(7));
  ProviderCore expiring([] {
    ProviderConfig config = config_with(7);
    config.key_ttl = 1h;
    return config;
  }());
  for (ProviderCore* provider : {&core, &expiring}) {
    for (int i = 0; i < 5; ++i)
      post(*provider, "k" + std::to_string(i), kOrder42, Millis{i});
    lookup(*provider, "other", 2h);  // any request sweeps what expired
  }
  EXPECT_EQ(core.retention().indexed_keys, 5U);
  EXPECT_EQ(expiring.retention().indexed_keys, 0U);
  EXPECT_EQ(stored_count(expiring), 5U);
  EXPECT_FALSE(jobs_of(expiring).contains("freed"));
}

TEST(MemoryLimits, MissedLookupsCostNoPerKeyCountWithoutLookupChaos) {
  ProviderCore core(config_with(7));
  for (int i = 0; i < 1000; ++i)
    lookup(core, "missing-" + std::to_string(i));
  post(core, "k1", kOrder42);
  EXPECT_EQ(core.retention().counted_keys, 0U);

  const Decision chaos = call(core, "POST", "/_test/faults",
                              R"({"chaos":{"seed":1,"rates":{"lookup-unavailable":0.5}}})");
  ASSERT_EQ(chaos.status, 200) << chaos.body;
  lookup(core, "counted");
  EXPECT_EQ(core.retention().counted_keys, 1U) << "a plan that draws lookup faults counts";
}

TEST(MemoryLimits, ASpilledJournalReadsBackWholeStreamedAndPaged) {
  const TempDir dir;
  ProviderConfig config = config_with(7);
  config.journal = {.in_memory = 4, .spill_file = (dir.path() / "journal.jsonl").string()};
  ProviderCore core(config);
  ProviderCore unbounded(config_with(7));
  for (ProviderCore* provider : {&core, &unbounded}) {
    for (int i = 0; i < 11; ++i)
      post(*provider, "k" + std::to_string(i % 3), kOrder42);
  }
  EXPECT_EQ(core.retention().spilled_entries, 9U);
  EXPECT_EQ(journal_of(core), journal_of(unbounded));
  EXPECT_EQ(core.journal(), unbounded.journal());
  const json page = journal_page(core, "after=3&limit=5");
  EXPECT_EQ(page, journal_page(unbounded, "after=3&limit=5"));
  EXPECT_EQ(page["next"], 8);
}

TEST(MemoryLimits, ADroppingJournalSaysHowManyItDropped) {
  ProviderConfig config = config_with(7);
  config.journal.in_memory = 4;
  ProviderCore core(config);
  for (int i = 0; i < 10; ++i)
    lookup(core, "k");
  const json journal = journal_of(core);
  EXPECT_EQ(journal["count"], 4);
  EXPECT_EQ(journal["dropped"], 6);
  EXPECT_EQ(journal["entries"][0]["seq"], 7);
  const json page = journal_page(core, "after=0&limit=2");
  EXPECT_EQ(page["entries"][0]["seq"], 7);
  EXPECT_EQ(page["next"], 8);
  EXPECT_EQ(page["dropped"], 6);
}

// Keys, fingerprints and the journal's texts are held once for the jobs and the entries that
// name them, and go with the last of those: a provider bounded by --max-keys, --key-ttl and
// --journal-limit holds no more of them however many keys it has seen, and a reset holds none.
TEST(MemoryLimits, ABoundedProviderHoldsOnlyTheKeysItsJobsAndEntriesName) {
  const TempDir dir;
  ProviderConfig config = bounded(10, 1h);
  config.journal = {.in_memory = 20, .spill_file = (dir.path() / "journal.jsonl").string()};
  config.operation_field = "orderId";
  ProviderCore core(config);
  Millis now{0};
  for (int i = 0; i < 600; ++i) {
    if (i % 10 == 0) now += 1h + Millis{1};  // the previous ten keys expire
    const std::string n = std::to_string(i);
    ASSERT_EQ(post(core, "k" + n, R"({"orderId":"order-)" + n + "\"}", now).status, 201) << i;
    lookup(core, "missing-" + n, now);
  }
  const ProviderCore::Retention held = core.retention();
  EXPECT_EQ(held.freed_jobs, 590U);
  EXPECT_LE(held.held_keys, 10U + 20U) << "the jobs' keys and the entries' in memory";
  EXPECT_LE(held.held_fingerprints, 10U + 20U);
  EXPECT_LE(held.journal_texts, 2U + 20U) << "two routes' texts and the operations in memory";
  EXPECT_EQ(core.journal().size(), 1200U) << "every entry still reads back from the file";

  ASSERT_EQ(call(core, "POST", "/_test/reset").status, 200);
  const ProviderCore::Retention reset = core.retention();
  EXPECT_EQ(reset.held_keys + reset.held_fingerprints + reset.journal_texts, 0U);
}

// Under chaos, a key that never stores a job (every create failed before commit) kept its
// attempt count for the life of the process. With --max-keys, the counts are bounded too.
TEST(MemoryLimits, ChaosAttemptCountsAreBoundedByMaxKeys) {
  ProviderCore core(bounded(50));
  const Decision chaos = call(core, "POST", "/_test/faults",
                              R"({"chaos":{"seed":1,"rates":{"fail-before-commit":1.0}}})");
  ASSERT_EQ(chaos.status, 200) << chaos.body;
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(post(core, "k" + std::to_string(i), kOrder42).status, 503);
  EXPECT_EQ(core.retention().counted_keys, 50U);
  EXPECT_EQ(core.retention().indexed_keys, 0U);
}

TEST(AttemptCounts, CountEachKeyAndForgetTheOldestPastTheBound) {
  AttemptCounts unbounded;
  EXPECT_EQ(unbounded.next("a"), 0U);
  EXPECT_EQ(unbounded.next("a"), 1U);
  AttemptCounts counts(2);
  counts.next("a");
  counts.next("a");
  counts.next("b");
  counts.next("c");  // forgets a, counted first
  EXPECT_EQ(counts.size(), 2U);
  EXPECT_EQ(counts.next("b"), 1U);
  EXPECT_EQ(counts.next("a"), 0U) << "a was forgotten: it draws as a first attempt";
  counts.forget("b");
  for (int i = 0; i < 100; ++i)
    counts.next("n" + std::to_string(i));
  EXPECT_EQ(counts.size(), 2U);
  EXPECT_EQ(counts.next("n99"), 1U);
}

}  // namespace
}  // namespace retryproof::provider
