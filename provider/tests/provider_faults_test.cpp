// Every fault of the catalogue through ProviderCore::handle() and complete() only: what the
// client is sent, what is stored, and what the journal says.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/fingerprint.hpp"
#include "provider/http_types.hpp"
#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// The helpers the ProviderCore tests share (core_test_support.hpp).
using namespace provider::testing;

// ---- this file's helpers ---------------------------------------------------------------

const std::string kFingerprint42 = fingerprint(json::parse(kOrder42));

// The journal entry of a POST /jobs with kOrder42 at time 0, answered at once. A fault other
// than none came from the test's one-fault plan: its source is faults[0].
JournalEntry create_entry(std::uint64_t seq, const std::string& key, Outcome outcome,
                          std::optional<std::string> fault, std::optional<int> status,
                          Delivery delivery, std::optional<std::string> job_id) {
  const bool planned = fault && *fault != "none";
  // The code the answer was written from: its fault row's, else its outcome's.
  std::optional<std::string> code;
  if (fault && status && !row_of(parse_fault(*fault).kind).error_code.empty())
    code = std::string(row_of(parse_fault(*fault).kind).error_code);
  if (outcome == Outcome::conflict) code = "idempotency_key_in_flight";
  if (outcome == Outcome::rejected) code = "idempotency_key_reused_with_different_payload";
  return {.seq = seq,
          .at = Millis{0},
          .method = "POST",
          .path = "/jobs",
          .kind = RequestKind::create,
          .key = key,
          .fingerprint = kFingerprint42,
          .outcome = outcome,
          .fault = fault ? std::optional<Fault>(parse_fault(*fault)) : std::nullopt,
          .planned = planned ? std::optional<std::string>("faults[0]") : std::nullopt,
          .answered_at = Millis{0},
          .delivery = delivery,
          .status = status,
          .code = code,
          .job_id = std::move(job_id)};
}

std::string id_of(const json& job) {
  return job.at("id").get<std::string>();
}

class ProviderFaultsTest : public ::testing::Test {
 protected:
  std::vector<std::string> log_lines_;
  ProviderCore core_{config_with(42, &log_lines_)};
};

// ---- faults that commit ----------------------------------------------------------------

TEST_F(ProviderFaultsTest, CommitThenResetResetsTheConnectionButStoresTheJob) {
  install(core_, {"commit-then-reset"});
  const Decision reset = post(core_, "key-A", kOrder42);
  EXPECT_EQ(reset.delivery, Delivery::reset);
  EXPECT_FALSE(reset.pending_commit.has_value());

  ASSERT_EQ(stored_count(core_), 1U);
  const Decision found = lookup(core_, "key-A");
  ASSERT_EQ(found.status, 200);
  json job = body_of(found);
  EXPECT_EQ(job["orderId"], "order-42");
  EXPECT_EQ(core_.journal()[0],
            create_entry(1, "key-A", Outcome::new_operation, "commit-then-reset", std::nullopt,
                         Delivery::reset, id_of(job)));

  const Decision retry = post(core_, "key-A", kOrder42);
  EXPECT_EQ(retry.delivery, Delivery::respond);
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), std::optional<std::string>("true"));
  EXPECT_EQ(body_of(retry), job);
}

TEST_F(ProviderFaultsTest, CommitThenDelayAnswers201AfterTheDelayAndStoresAtOnce) {
  install(core_, {"commit-then-delay:2s"});
  const Decision delayed = post(core_, "key-A", kOrder42);
  EXPECT_EQ(delayed.delivery, Delivery::respond);
  EXPECT_EQ(delayed.status, 201);
  EXPECT_EQ(delayed.delay, Millis{2'000});
  EXPECT_FALSE(delayed.pending_commit.has_value());
  json job = body_of(delayed);
  EXPECT_EQ(job["orderId"], "order-42");

  // Stored before the answer leaves: a lookup during the delay finds it.
  ASSERT_EQ(stored_count(core_), 1U);
  const Decision found = lookup(core_, "key-A", Millis{500});
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(body_of(found), job);
  JournalEntry delayed_entry =
      create_entry(1, "key-A", Outcome::new_operation, "commit-then-delay:2s", 201,
                   Delivery::respond, id_of(job));
  delayed_entry.answered_at = Millis{2'000};  // the answer ends after the hold
  EXPECT_EQ(core_.journal()[0], delayed_entry);
  const Decision retry = post(core_, "key-A", kOrder42, Millis{600});
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(retry.delay, Millis{0});
  EXPECT_EQ(body_of(retry), job);
}

TEST_F(ProviderFaultsTest, CommitThenTruncateSendsPartOfA201AndStoresTheJob) {
  install(core_, {"commit-then-truncate"});
  const Decision truncated = post(core_, "key-A", kOrder42);
  EXPECT_EQ(truncated.delivery, Delivery::truncate);
  EXPECT_EQ(truncated.status, 201);
  json job = body_of(truncated);  // the whole job: the adapter cuts it
  EXPECT_EQ(job, json({{"id", job["id"]}, {"orderId", "order-42"}}));

  ASSERT_EQ(stored_count(core_), 1U);
  EXPECT_EQ(body_of(lookup(core_, "key-A")), job);
  EXPECT_EQ(core_.journal()[0],
            create_entry(1, "key-A", Outcome::new_operation, "commit-then-truncate", 201,
                         Delivery::truncate, id_of(job)));
}

TEST_F(ProviderFaultsTest, CommitThen500Is500InternalErrorAndTheRetryReplays) {
  install(core_, {"commit-then-500"});
  const Decision failed = post(core_, "key-A", kOrder42);
  EXPECT_EQ(failed.delivery, Delivery::respond);
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(body_of(failed), json({{"error", "internal_error"}}));

  ASSERT_EQ(stored_count(core_), 1U);
  json job = body_of(lookup(core_, "key-A"));
  const Decision retry = post(core_, "key-A", kOrder42);
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), std::optional<std::string>("true"));
  EXPECT_EQ(body_of(retry), job);
  EXPECT_EQ(stored_count(core_), 1U);
  const auto entries = core_.journal();
  EXPECT_EQ(entries[0], create_entry(1, "key-A", Outcome::new_operation, "commit-then-500", 500,
                                     Delivery::respond, id_of(job)));
  EXPECT_EQ(entries[2], create_entry(3, "key-A", Outcome::replay, std::nullopt, 200,
                                     Delivery::respond, id_of(job)));
}

// ---- faults that store nothing -----------------------------------------------------------

TEST_F(ProviderFaultsTest, DropBeforeCommitDropsAndStoresNothing) {
  install(core_, {"drop-before-commit"});
  const Decision dropped = post(core_, "key-A", kOrder42);
  EXPECT_EQ(dropped.delivery, Delivery::drop);
  EXPECT_EQ(stored_count(core_), 0U);
  EXPECT_EQ(lookup(core_, "key-A").status, 404);

  // The same key is a new operation: 201 and a job.
  const Decision retry = post(core_, "key-A", kOrder42);
  EXPECT_EQ(retry.delivery, Delivery::respond);
  ASSERT_EQ(retry.status, 201) << retry.body;
  EXPECT_FALSE(header_of(retry, "Idempotent-Replayed").has_value());
  json job = body_of(retry);
  EXPECT_EQ(stored_count(core_), 1U);

  const auto entries = core_.journal();
  ASSERT_EQ(entries.size(), 3U);
  EXPECT_EQ(entries[0], create_entry(1, "key-A", Outcome::new_operation, "drop-before-commit",
                                     std::nullopt, Delivery::drop, std::nullopt));
  EXPECT_EQ(entries[2], create_entry(3, "key-A", Outcome::new_operation, "none", 201,
                                     Delivery::respond, id_of(job)));
}

TEST_F(ProviderFaultsTest, RateLimitedIs429WithRetryAfterAndStoresNothing) {
  install(core_, {"rate-limited:7", "rate-limited"});
  const Decision limited = post(core_, "key-A", kOrder42);
  EXPECT_EQ(limited.delivery, Delivery::respond);
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(header_of(limited, "Retry-After"), std::optional<std::string>("7"));
  EXPECT_EQ(body_of(limited),
            json({{"error", "rate_limited"},
                  {"detail", "slow down and retry after the Retry-After delay"}}));
  EXPECT_EQ(stored_count(core_), 0U);
  EXPECT_EQ(lookup(core_, "key-A").status, 404);

  // The default Retry-After is one second.
  const Decision again = post(core_, "key-A", kOrder42);
  EXPECT_EQ(again.status, 429);
  EXPECT_EQ(header_of(again, "Retry-After"), std::optional<std::string>("1"));

  const Decision created = post(core_, "key-A", kOrder42);
  EXPECT_EQ(created.status, 201);
  const auto entries = core_.journal();
  JournalEntry limited_entry = create_entry(1, "key-A", Outcome::new_operation, "rate-limited:7",
                                            429, Delivery::respond, std::nullopt);
  limited_entry.retry_after_seconds = 7;  // what the client was told
  EXPECT_EQ(entries[0], limited_entry);
  JournalEntry default_entry = create_entry(3, "key-A", Outcome::new_operation, "rate-limited", 429,
                                            Delivery::respond, std::nullopt);
  default_entry.retry_after_seconds = 1;
  default_entry.planned = "faults[1]";  // the plan's second entry
  EXPECT_EQ(entries[2], default_entry);
}

// ---- delay-before-commit -----------------------------------------------------------------

TEST_F(ProviderFaultsTest, DelayBeforeCommitHoldsTheKeyInFlightThenCommits) {
  install(core_, {"delay-before-commit:1s", "commit-then-error"});
  const Decision held = post(core_, "key-A", kOrder42, Millis{100});
  ASSERT_TRUE(held.pending_commit.has_value());
  EXPECT_EQ(*held.pending_commit, 1U);  // the journal seq of the held request
  EXPECT_EQ(held.delay, Millis{1'000});
  EXPECT_EQ(held.delivery, Delivery::respond);
  EXPECT_EQ(stored_count(core_), 0U);

  // Meanwhile: a duplicate is 409, a changed payload too, and a lookup finds nothing.
  const Decision duplicate = post(core_, "key-A", kOrder42, Millis{200});
  EXPECT_EQ(duplicate.status, 409);
  EXPECT_EQ(body_of(duplicate)["error"], "idempotency_key_in_flight");
  const Decision changed = post(core_, "key-A", R"({"orderId":"order-43"})", Millis{250});
  EXPECT_EQ(changed.status, 409);
  EXPECT_EQ(body_of(changed)["error"], "idempotency_key_in_flight");
  const Decision miss = lookup(core_, "key-A", Millis{300});
  EXPECT_EQ(miss.status, 404);
  EXPECT_EQ(body_of(miss), json({{"error", "not_found"}}));
  EXPECT_EQ(stored_count(core_), 0U);

  auto entries = core_.journal();
  ASSERT_EQ(entries.size(), 4U);
  ASSERT_TRUE(entries[0].job_id.has_value());
  const std::string job_id = *entries[0].job_id;
  JournalEntry first = create_entry(1, "key-A", Outcome::new_operation, "delay-before-commit:1s",
                                    std::nullopt, Delivery::respond, job_id);
  first.at = Millis{100};
  first.answered_at.reset();  // held: nothing has reached the client yet
  EXPECT_EQ(entries[0], first);
  EXPECT_FALSE(entries[0].delivered());
  JournalEntry conflict = create_entry(2, "key-A", Outcome::conflict, std::nullopt, 409,
                                       Delivery::respond, std::nullopt);
  conflict.at = Millis{200};
  conflict.answered_at = Millis{200};
  EXPECT_EQ(entries[1], conflict);
  EXPECT_EQ(entries[2].outcome, Outcome::conflict);
  EXPECT_EQ(entries[2].fingerprint, fingerprint(json::parse(R"({"orderId":"order-43"})")));
  EXPECT_EQ(entries[3].outcome, Outcome::lookup_miss);
  EXPECT_EQ(entries[3].status, 404);

  // The wait ends: 201 with the job, now stored, and the first entry says so.
  const Decision committed = core_.complete(*held.pending_commit, Millis{1'100});
  EXPECT_EQ(committed.delivery, Delivery::respond);
  EXPECT_EQ(committed.status, 201);
  EXPECT_EQ(committed.delay, Millis{0});
  EXPECT_FALSE(committed.pending_commit.has_value());
  json job = body_of(committed);
  EXPECT_EQ(job, json({{"id", job_id}, {"orderId", "order-42"}}));
  EXPECT_EQ(jobs_of(core_),
            json({{"count", 1},
                  {"jobs", {{{"key", "key-A"}, {"id", job_id}, {"orderId", "order-42"}}}}}));
  entries = core_.journal();
  ASSERT_EQ(entries.size(), 4U);  // complete() adds no entry
  first.status = 201;
  first.answered_at = Millis{1'100};
  EXPECT_EQ(entries[0], first);
  EXPECT_TRUE(entries[0].delivered());

  // Afterwards the key replays, and the 409s consumed no fault.
  const Decision replay = post(core_, "key-A", kOrder42, Millis{1'200});
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(header_of(replay, "Idempotent-Replayed"), std::optional<std::string>("true"));
  EXPECT_EQ(body_of(replay), job);
  EXPECT_EQ(body_of(lookup(core_, "key-A")), job);
  EXPECT_EQ(post(core_, "key-B", kOrder42).status, 503);  // commit-then-error is still next
  EXPECT_EQ(stored_count(core_), 2U);
}

TEST_F(ProviderFaultsTest, DelayBeforeCommitLogsTheHoldAndTheCommit) {
  install(core_, {"delay-before-commit:1s"});
  const Decision held = post(core_, "key-A", kOrder42);
  ASSERT_TRUE(held.pending_commit.has_value());
  post(core_, "key-A", kOrder42);
  const std::string id = body_of(core_.complete(*held.pending_commit, Millis{1'000}))["id"];
  EXPECT_EQ(log_lines_, (std::vector<std::string>{
                            "[provider] key=\"key-A\" NEW fault=delay-before-commit:1s",
                            "[provider] key=\"key-A\" CONFLICT (in flight)",
                            "[provider] key=\"key-A\" COMMITTED job=" + id + " (after delay)",
                        }));
}

TEST_F(ProviderFaultsTest, HeldRequestsOfTwoKeysCompleteIndependently) {
  install(core_, {"delay-before-commit:1s", "delay-before-commit:2s"});
  const Decision first = post(core_, "key-A", kOrder42);
  const Decision second = post(core_, "key-B", R"({"orderId":"order-7"})");
  ASSERT_TRUE(first.pending_commit.has_value());
  ASSERT_TRUE(second.pending_commit.has_value());
  EXPECT_EQ(*first.pending_commit, 1U);
  EXPECT_EQ(*second.pending_commit, 2U);
  EXPECT_EQ(second.delay, Millis{2'000});

  const Decision b = core_.complete(*second.pending_commit, Millis{2'000});
  EXPECT_EQ(body_of(b)["orderId"], "order-7");
  EXPECT_EQ(post(core_, "key-A", kOrder42).status, 409);  // key-A is still held
  const Decision a = core_.complete(*first.pending_commit, Millis{2'100});
  EXPECT_EQ(body_of(a)["orderId"], "order-42");
  // Creation order is commit order.
  json jobs = jobs_of(core_)["jobs"];
  ASSERT_EQ(jobs.size(), 2U);
  EXPECT_EQ(jobs[0]["key"], "key-B");
  EXPECT_EQ(jobs[1]["key"], "key-A");
}

TEST_F(ProviderFaultsTest, ResetWhileARequestIsHeldAnswers503AndStoresNothing) {
  install(core_, {"delay-before-commit:1s"});
  const Decision held = post(core_, "key-A", kOrder42);
  ASSERT_TRUE(held.pending_commit.has_value());
  ASSERT_EQ(call(core_, "POST", "/_test/reset").status, 200);

  const Decision after_reset = core_.complete(*held.pending_commit, Millis{1'000});
  EXPECT_EQ(after_reset.delivery, Delivery::respond);
  EXPECT_EQ(after_reset.status, 503);
  EXPECT_EQ(body_of(after_reset)["error"], "temporarily_unavailable");
  EXPECT_EQ(stored_count(core_), 0U);
  EXPECT_TRUE(core_.journal().empty());
  EXPECT_EQ(lookup(core_, "key-A").status, 404);
  EXPECT_EQ(post(core_, "key-A", kOrder42).status, 201);  // no longer in flight
}

// After a reset the journal's sequence numbers start again at 1, so a request held before
// the reset and one held after it can carry the same pending_commit. Completing the old
// one must not commit the new one.
TEST_F(ProviderFaultsTest, CompletingARequestHeldBeforeAResetLeavesANewHeldRequestAlone) {
  install(core_, {"delay-before-commit:1s"});
  const Decision old_held = post(core_, "key-A", kOrder42);
  ASSERT_TRUE(old_held.pending_commit.has_value());
  ASSERT_EQ(call(core_, "POST", "/_test/reset").status, 200);

  install(core_, {"delay-before-commit:5s"});
  const Decision new_held = post(core_, "key-B", R"({"orderId":"order-7"})", Millis{10});
  ASSERT_TRUE(new_held.pending_commit.has_value());

  // The old request's wait ends: the provider was reset under it.
  const Decision old_answer = core_.complete(*old_held.pending_commit, Millis{1'000});
  EXPECT_EQ(old_answer.status, 503) << old_answer.body;
  EXPECT_EQ(stored_count(core_), 0U) << "key-B was committed 4 s early by key-A's complete()";
  EXPECT_EQ(post(core_, "key-B", R"({"orderId":"order-7"})", Millis{1'100}).status, 409)
      << "key-B should still be in flight";

  // key-B's own wait ends with its 201.
  const Decision new_answer = core_.complete(*new_held.pending_commit, Millis{5'010});
  EXPECT_EQ(new_answer.status, 201) << new_answer.body;
  EXPECT_EQ(stored_count(core_), 1U);
}

// ---- lookup-unavailable ------------------------------------------------------------------

TEST_F(ProviderFaultsTest, LookupUnavailableFailsTheNextLookupOnly) {
  ASSERT_EQ(post(core_, "key-A", kOrder42).status, 201);
  install(core_, {"lookup-unavailable"});
  // A new operation does not take it.
  const Decision created = post(core_, "key-B", kOrder42);
  ASSERT_EQ(created.status, 201);

  const Decision failed = lookup(core_, "key-A");
  EXPECT_EQ(failed.status, 503);
  EXPECT_EQ(body_of(failed), json({{"error", "temporarily_unavailable"}}));
  const Decision found = lookup(core_, "key-A");
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(body_of(found)["orderId"], "order-42");

  const auto entries = core_.journal();
  ASSERT_EQ(entries.size(), 4U);
  EXPECT_EQ(entries[1].fault, Fault{FaultKind::none});
  EXPECT_EQ(entries[2], (JournalEntry{.seq = 3,
                                      .at = Millis{0},
                                      .method = "GET",
                                      .path = "/jobs/by-idempotency-key/key-A",
                                      .kind = RequestKind::lookup,
                                      .key = "key-A",
                                      .outcome = Outcome::lookup_failed,
                                      .fault = Fault{FaultKind::lookup_unavailable},
                                      .planned = "faults[0]",
                                      .answered_at = Millis{0},
                                      .status = 503,
                                      .code = "temporarily_unavailable"}));
  EXPECT_EQ(entries[3].outcome, Outcome::lookup_hit);
  EXPECT_EQ(entries[3].fault, std::nullopt);
  EXPECT_EQ(entries[3].job_id, id_of(body_of(found)));
}

TEST_F(ProviderFaultsTest, LookupUnavailableAlsoFailsALookupThatWouldMiss) {
  install(core_, {"lookup-unavailable"});
  EXPECT_EQ(lookup(core_, "never").status, 503);
  EXPECT_EQ(lookup(core_, "never").status, 404);
}

// A provider that records keys for lookup but does not deduplicate: every create is a new
// job, and a lookup finds the first.
TEST(ProviderContract, WithoutKeyEnforcementEveryCreateIsANewJob) {
  ProviderConfig config = config_with(42);
  config.enforce_keys = false;
  ProviderCore core(config);
  const std::string first = body_of(post(core, "key-A", kOrder42))["id"];
  const Decision again = post(core, "key-A", kOrder42);
  EXPECT_EQ(again.status, 201);  // not a replay
  EXPECT_FALSE(header_of(again, "Idempotent-Replayed").has_value());
  EXPECT_NE(body_of(again)["id"], first);
  EXPECT_EQ(post(core, "key-A", R"({"orderId":"order-7"})").status, 201);  // not a 422
  EXPECT_EQ(stored_count(core), 3U);
  EXPECT_EQ(body_of(lookup(core, "key-A"))["id"], first);
  const auto entries = core.journal();
  EXPECT_EQ(entries[1].outcome, Outcome::new_operation);
}

TEST(ProviderContract, AClientThatStopsWaitingIsJournaledWhenItLeaves) {
  ProviderCore core(config_with(42));
  install(core, {"commit-then-delay:3s"});
  const Decision held = post(core, "key-A", kOrder42, Millis{100});
  ASSERT_EQ(held.journal_seq, 1U);
  core.abandoned(held.journal_seq, Millis{1'100});
  core.abandoned(held.journal_seq, Millis{1'500});  // the first time it left counts
  EXPECT_EQ(core.journal()[0].abandoned_at, Millis{1'100});
  EXPECT_EQ(core.journal()[0].answered_at, Millis{3'100});
}

TEST_F(ProviderFaultsTest, EveryFaultNameIsJournaledAsWritten) {
  const std::vector<std::string> names = {"none",
                                          "fail-before-commit",
                                          "commit-then-error",
                                          "commit-then-drop",
                                          "commit-then-reset",
                                          "drop-before-commit",
                                          "commit-then-delay:250ms",
                                          "rate-limited:3",
                                          "commit-then-truncate",
                                          "commit-then-500"};
  install(core_, names);
  for (std::size_t i = 0; i < names.size(); ++i)
    post(core_, "key-" + std::to_string(i), kOrder42);
  json entries = journal_entries(core_);
  ASSERT_EQ(entries.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(entries[i]["fault"], names[i]);
  // Stored: none, commit-then-error, -drop, -reset, -delay, -truncate, -500.
  EXPECT_EQ(stored_count(core_), 7U);
}

}  // namespace
}  // namespace retryproof::provider
