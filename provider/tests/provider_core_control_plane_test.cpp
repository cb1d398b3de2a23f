// ProviderCore's control plane as the baseline specifies it (docs/original-spec/PROVIDER.md):
// installing a plan, inspecting jobs and the journal, and reset. Through handle() only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/fingerprint.hpp"
#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"
#include "provider/tests/provider_core_fixture.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using namespace provider::testing;

// ---- control plane: fault plan ----------------------------------------------------------

TEST_F(ProviderCoreTest, InstallingAPlanEchoesIt) {
  const std::string plan = R"({"faults":["commit-then-error","none","commit-then-drop"]})";
  const Decision decision = call(core_, "POST", "/_test/faults", plan);
  EXPECT_EQ(decision.status, 200);
  EXPECT_EQ(body_of(decision), json::parse(plan));
}

TEST_F(ProviderCoreTest, InstallingAPlanReplacesTheScript) {
  install(core_, {"commit-then-error", "commit-then-error"});
  install(core_, {"commit-then-drop"});
  EXPECT_EQ(post(core_, "k1", "{}").delivery, Delivery::drop);
  EXPECT_EQ(post(core_, "k2", "{}").status, 201);
}

TEST_F(ProviderCoreTest, UnknownFaultNameIs400AndKeepsThePlanInForce) {
  install(core_, {"commit-then-error"});

  const Decision rejected =
      call(core_, "POST", "/_test/faults", R"({"faults":["none","comit-then-drop"]})");
  expect_error(rejected, 400, "invalid_fault_plan");
  const std::string detail = body_of(rejected).value("detail", "");
  EXPECT_NE(detail.find("faults[1]"), std::string::npos) << detail;
  EXPECT_NE(detail.find("comit-then-drop"), std::string::npos) << detail;

  // Other bad plans are refused the same way.
  for (const std::string body : {"not json", "[]", R"({"faults":"none"})", R"({"faults":[1]})",
                                 R"({"faults":[],"extra":1})", R"({})"}) {
    SCOPED_TRACE(body);
    expect_error(call(core_, "POST", "/_test/faults", body), 400, "invalid_fault_plan");
  }

  // The earlier plan's fault still applies to the next new operation.
  expect_error(post(core_, "key-A", kOrder42), 503, "temporarily_unavailable");
  EXPECT_EQ(stored_count(core_), 1U);  // commit-then-error, not fail-before-commit
  EXPECT_EQ(post(core_, "key-B", kOrder42).status, 201);
}

// ---- control plane: inspection ----------------------------------------------------------

TEST_F(ProviderCoreTest, TestJobsListsJobsInCreationOrder) {
  EXPECT_EQ(jobs_of(core_), json({{"count", 0}, {"jobs", json::array()}}));

  install(core_, {"none", "fail-before-commit", "commit-then-error", "commit-then-drop"});
  const std::string c_id = job_id_of(post(core_, "key-C", R"({"orderId":"order-3"})"));
  post(core_, "key-X", R"({"orderId":"order-never"})");  // fail-before-commit: not stored
  post(core_, "key-A", R"({"orderId":"order-1"})");      // commit-then-error: stored
  post(core_, "key-B", R"({"amount":7})");               // commit-then-drop: stored, no orderId
  post(core_, "key-C", R"({"orderId":"order-3"})");      // replay: not a second job
  const std::string a_id = job_id_of(lookup(core_, "key-A"));
  const std::string b_id = job_id_of(lookup(core_, "key-B"));

  const json expected = {
      {"count", 3},
      {"jobs",
       {
           {{"key", "key-C"}, {"id", c_id}, {"orderId", "order-3"}},
           {{"key", "key-A"}, {"id", a_id}, {"orderId", "order-1"}},
           {{"key", "key-B"}, {"id", b_id}},
       }},
  };
  EXPECT_EQ(jobs_of(core_), expected);
  EXPECT_NE(c_id, a_id);
  EXPECT_NE(a_id, b_id);
}

TEST_F(ProviderCoreTest, JournalRecordsEveryDataPlaneRequest) {
  const std::string payload_a = R"({"orderId":"order-1"})";
  const std::string payload_b = R"({"orderId":"order-2"})";
  const std::string fp_a = fingerprint(json::parse(payload_a));
  const std::string fp_b = fingerprint(json::parse(payload_b));

  const std::string id_a = job_id_of(post(core_, "key-A", payload_a, Millis{100}));
  post(core_, "key-A", payload_a, Millis{200});
  post(core_, "key-A", payload_b, Millis{300});
  post_without_key(core_, payload_a, Millis{400});
  post(core_, "bad\nkey", payload_a, Millis{500});
  post(core_, "key-J", "[1]", Millis{550});
  lookup(core_, "key-A", Millis{600});
  lookup(core_, "key-Z", Millis{700});
  install(core_, {"commit-then-drop", "fail-before-commit"});
  post(core_, "key-B", payload_b, Millis{800});
  const std::string id_b = job_id_of(lookup(core_, "key-B", Millis{900}));
  post(core_, "key-F", payload_a, Millis{1000});
  call(core_, "GET", "/elsewhere", {}, Millis{1100});
  call(core_, "DELETE", "/jobs", {}, Millis{1200});

  // Every request here is answered at once, so answeredAtMs is atMs; the drop sends no
  // status line.
  const auto entry = [](std::uint64_t seq, std::int64_t at, const char* method, const char* path,
                        const char* kind, json key, json fp, const char* outcome, json fault,
                        json status, const char* delivery, json job_id) {
    return json{{"seq", seq},
                {"atMs", at},
                {"method", method},
                {"path", path},
                {"kind", kind},
                {"key", key},
                {"fingerprint", fp},
                {"operation", nullptr},  // this provider records no --operation-field
                {"outcome", outcome},
                {"fault", fault},
                {"answeredAtMs", at},
                {"abandonedAtMs", nullptr},
                {"delivery", delivery},
                {"status", status},
                {"delivered", std::string(delivery) == "respond"},
                {"retryAfter", nullptr},
                {"jobId", job_id},
                {"closeNotify", nullptr}};  // these requests came over no TLS
  };
  const json null = nullptr;
  const char* lookup_a = "/jobs/by-idempotency-key/key-A";
  json expected = json::array({
      entry(1, 100, "POST", "/jobs", "create", "key-A", fp_a, "new", "none", 201, "respond", id_a),
      entry(2, 200, "POST", "/jobs", "create", "key-A", fp_a, "replay", null, 200, "respond", id_a),
      entry(3, 300, "POST", "/jobs", "create", "key-A", fp_b, "rejected", null, 422, "respond",
            id_a),
      entry(4, 400, "POST", "/jobs", "create", null, null, "missing_key", null, 400, "respond",
            null),
      entry(5, 500, "POST", "/jobs", "create", null, null, "invalid", null, 400, "respond", null),
      entry(6, 550, "POST", "/jobs", "create", "key-J", null, "invalid", null, 400, "respond",
            null),
      entry(7, 600, "GET", lookup_a, "lookup", "key-A", null, "lookup_hit", null, 200, "respond",
            id_a),
      entry(8, 700, "GET", "/jobs/by-idempotency-key/key-Z", "lookup", "key-Z", null, "lookup_miss",
            null, 404, "respond", null),
      entry(9, 800, "POST", "/jobs", "create", "key-B", fp_b, "new", "commit-then-drop", null,
            "drop", id_b),
      entry(10, 900, "GET", "/jobs/by-idempotency-key/key-B", "lookup", "key-B", null, "lookup_hit",
            null, 200, "respond", id_b),
      entry(11, 1000, "POST", "/jobs", "create", "key-F", fp_a, "new", "fail-before-commit", 503,
            "respond", null),
      entry(12, 1100, "GET", "/elsewhere", "other", null, null, "invalid", null, 404, "respond",
            null),
      entry(13, 1200, "DELETE", "/jobs", "other", null, null, "invalid", null, 405, "respond",
            null),
  });

  // The two faults the plan scripted name their place in it.
  expected[8]["planned"] = "faults[0]";
  expected[10]["planned"] = "faults[1]";
  // Each error answer names the provider's code it was written from.
  expected[2]["code"] = "idempotency_key_reused_with_different_payload";
  expected[3]["code"] = "idempotency_key_required";
  expected[4]["code"] = "idempotency_key_invalid";
  expected[5]["code"] = "invalid_json";
  expected[7]["code"] = "not_found";
  expected[10]["code"] = "temporarily_unavailable";
  expected[11]["code"] = "not_found";
  expected[12]["code"] = "method_not_allowed";
  const json journal = journal_of(core_);
  EXPECT_EQ(journal["count"], 13);
  ASSERT_EQ(journal["entries"].size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(journal["entries"][i], expected[i]) << "entry " << i;
  }
  // The JSON edge is exact: reading it back gives the journal the core holds.
  EXPECT_EQ(journal_from_json(journal), core_.journal());
}

TEST_F(ProviderCoreTest, ControlCallsAreNotJournaled) {
  install(core_, {"none"});
  get(core_, "/_test/jobs");
  get(core_, "/_test/journal");
  call(core_, "GET", "/_test/faults");  // 405
  call(core_, "GET", "/_test/nope");    // 404
  EXPECT_EQ(journal_of(core_),
            json({{"count", 0}, {"entries", json::array()}, {"complete", true}}));

  post(core_, "key-A", kOrder42);
  install(core_, {"none"});
  const json journal = journal_of(core_);
  EXPECT_EQ(journal["count"], 1);
  EXPECT_EQ(journal["entries"][0]["seq"], 1);
  EXPECT_EQ(journal["entries"][0]["path"], "/jobs");
}

// ---- control plane: reset ---------------------------------------------------------------

TEST_F(ProviderCoreTest, ResetEmptiesStorePlanAndJournal) {
  ASSERT_EQ(post(core_, "key-A", kOrder42).status, 201);
  lookup(core_, "key-A");
  install(core_, {"commit-then-error", "commit-then-drop"});

  const Decision reset = call(core_, "POST", "/_test/reset", "");
  EXPECT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(body_of(reset)["reset"], true);

  EXPECT_EQ(jobs_of(core_), json({{"count", 0}, {"jobs", json::array()}}));
  EXPECT_EQ(journal_of(core_),
            json({{"count", 0}, {"entries", json::array()}, {"complete", true}}));
  expect_error(lookup(core_, "key-A"), 404, "not_found");
  // The plan is empty: the next new operation gets `none`; the old key is new again.
  EXPECT_EQ(post(core_, "key-A", kOrder42).status, 201);
  EXPECT_EQ(post(core_, "key-B", kOrder42).status, 201);
  // The journal restarted: sequence numbers begin at 1 again.
  EXPECT_EQ(journal_of(core_)["entries"][0]["seq"], 1);
}

TEST_F(ProviderCoreTest, ResetWithSeedRestartsJobIdsDeterministically) {
  for (const char* key : {"key-A", "key-B", "key-C"})
    post(core_, key, kOrder42);

  const Decision reset = call(core_, "POST", "/_test/reset", R"({"seed":7})");
  ASSERT_EQ(reset.status, 200) << reset.body;
  EXPECT_EQ(body_of(reset), json({{"reset", true}, {"seed", 7}}));

  ProviderCore fresh(config_with(7));
  for (const char* key : {"key-X", "key-Y", "key-Z"}) {
    const Decision after_reset = post(core_, key, kOrder42);
    const Decision from_fresh = post(fresh, key, kOrder42);
    ASSERT_EQ(after_reset.status, 201);
    EXPECT_EQ(after_reset.body, from_fresh.body) << key;
  }
  // Seed 7 is not seed 42.
  ProviderCore other(config_with(kSeed));
  EXPECT_NE(job_id_of(post(other, "key-X", kOrder42)), job_id_of(lookup(core_, "key-X")));
}

TEST_F(ProviderCoreTest, ResetWithBadSeedIs400AndChangesNothing) {
  ASSERT_EQ(post(core_, "key-A", kOrder42).status, 201);
  install(core_, {"commit-then-error"});

  for (const std::string body :
       {R"({"seed":-1})", R"({"seed":"7"})", R"({"seed":1.5})", R"({"seed":null})",
        R"({"seed":[7]})", R"({"sede":7})", "not json", "[7]", "7"}) {
    SCOPED_TRACE(body);
    const Decision decision = call(core_, "POST", "/_test/reset", body);
    EXPECT_EQ(decision.status, 400) << decision.body;
    EXPECT_TRUE(body_of(decision).contains("error"));
  }
  // Store, plan and journal are as they were.
  EXPECT_EQ(stored_count(core_), 1U);
  EXPECT_EQ(journal_of(core_)["count"], 1);
  expect_error(post(core_, "key-B", kOrder42), 503, "temporarily_unavailable");
}

}  // namespace
}  // namespace retryproof::provider
