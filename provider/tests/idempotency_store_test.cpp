// The idempotency store's compact jobs: a job reads back as it was stored (whatever form its
// id has), the key table is the index and is shared with the journal so that a key is held
// once, and a freed job (or a clear) lets go of its key and fingerprint.
#include "provider/idempotency_store.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/fingerprint.hpp"
#include "provider/journal_store.hpp"

namespace retryproof::provider {
namespace {

using namespace std::chrono_literals;

StoredJob job_for(const std::string& key, const std::string& id = "job_00c0ffee") {
  return StoredJob{.key = key,
                   .fingerprint = Digest::from_hex(sha256_hex(key)),
                   .id = id,
                   .body = R"({"id":")" + id + R"(","orderId":"order-42"})",
                   .created_at = Millis(10)};
}

TEST(IdempotencyStore, AJobReadsBackAsStoredWhateverTheFormOfItsId) {
  IdempotencyStore store;
  StoredJob errored = job_for("k2", "pi_3MtwBwLkdIwHu7ix");  // an upstream's id, at a proxy
  errored.first_status = 500;
  errored.first_body = R"({"error":"internal"})";
  const std::vector<StoredJob> jobs = {job_for("k1"), errored, job_for("\xff\xfe", "job_FFFFFFFF")};
  for (const StoredJob& job : jobs)
    EXPECT_EQ(store.insert(job), job);
  ASSERT_EQ(store.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(store.at(i), jobs[i]) << i;
    EXPECT_EQ(store.find(jobs[i].key, Millis(20)), jobs[i]) << i;
  }
}

TEST(IdempotencyStore, AKeyNamesItsFirstJobAndAnExpiredOneNone) {
  IdempotencyStore store(1h);
  store.insert(job_for("k", "job_00000001"));
  store.insert(job_for("k", "job_00000002"));  // a provider that does not enforce keys
  EXPECT_EQ(store.find("k", Millis(20))->id, "job_00000001");
  EXPECT_EQ(store.keys(), 1U);
  EXPECT_FALSE(store.find("k", 2h));
  EXPECT_EQ(store.keys(), 0U);
  EXPECT_EQ(store.size(), 2U) << "the jobs stay as evidence";
}

TEST(IdempotencyStore, AnExpiredJobForgetsItsFirstResponseButKeepsItsId) {
  IdempotencyStore store(1h);
  StoredJob job = job_for("k", "upstream-7");
  job.first_status = 502;
  job.first_body = "bad gateway";
  store.insert(job);
  store.find("other", 2h);  // sweeps what expired
  const StoredJob held = store.at(0);
  EXPECT_EQ(held.id, "upstream-7");
  EXPECT_TRUE(held.first_body.empty());
  EXPECT_EQ(held.first_response(), job.body);
}

TEST(IdempotencyStore, TheJournalAndTheStoreHoldAKeyOnce) {
  const auto shared = std::make_shared<KeyTables>();
  IdempotencyStore store({}, {}, shared);
  JournalStore journal({}, shared);
  const StoredJob job = store.insert(job_for("order/42"));
  for (int i = 0; i < 3; ++i) {
    journal.append(JournalEntry{.seq = journal.next_seq(),
                                .method = "POST",
                                .path = "/jobs",
                                .key = job.key,
                                .fingerprint = sha256_hex(job.key),
                                .job_id = job.id});
  }
  EXPECT_EQ(shared->keys.size(), 1U);
  EXPECT_EQ(shared->keys.holders(*shared->keys.find("order/42")), 4U);
  EXPECT_EQ(shared->digests.size(), 1U) << "a replay's fingerprint is its job's";
  store.clear();
  journal.clear();
  EXPECT_EQ(shared->keys.size() + shared->digests.size(), 0U);
}

TEST(IdempotencyStore, AFreedJobLetsGoOfItsKeyAndItsSlotServesTheNext) {
  const auto shared = std::make_shared<KeyTables>();
  IdempotencyStore store(1h, 2, shared);
  Millis now{0};
  for (int i = 0; i < 1000; ++i) {
    now += 1h + Millis(1);  // the previous keys have expired
    ASSERT_TRUE(store.has_room(0, now));
    StoredJob job = job_for("key-" + std::to_string(i));
    job.created_at = now;
    store.insert(job);
  }
  EXPECT_EQ(store.size(), 1U + 1U);
  EXPECT_EQ(store.freed_jobs(), 998U);
  EXPECT_EQ(shared->keys.size(), 2U) << "only the held jobs' keys";
  EXPECT_LE(shared->keys.capacity(), 3U) << "freed slots are reused";
  EXPECT_EQ(store.find("key-999", now)->key, "key-999");
  EXPECT_FALSE(store.find("key-0", now));
}

}  // namespace
}  // namespace retryproof::provider
