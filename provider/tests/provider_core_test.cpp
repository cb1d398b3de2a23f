// ProviderCore through handle() only: one test per rule of the wire contract
// (docs/original-spec/PROVIDER.md, the *baseline* rows). Its control plane's baseline is in
// provider_core_control_plane_test.cpp.
#include "provider/provider_core.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/fingerprint.hpp"
#include "provider/http_types.hpp"
#include "provider/tests/core_test_support.hpp"
#include "provider/tests/provider_core_fixture.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// The helpers the ProviderCore tests share (core_test_support.hpp).
using namespace provider::testing;

// ---- Idempotency-Key validation ---------------------------------------------------------

TEST_F(ProviderCoreTest, MissingOrEmptyKeyIs400AndConsumesNoFault) {
  install(core_, {"commit-then-error"});

  expect_error(post_without_key(core_, kOrder42), 400, "idempotency_key_required");
  expect_error(post(core_, "", kOrder42), 400, "idempotency_key_required");
  EXPECT_EQ(stored_count(core_), 0U);

  // The script's first fault is still there for the first keyed request.
  expect_error(post(core_, "key-A", kOrder42), 503, "temporarily_unavailable");
  EXPECT_EQ(stored_count(core_), 1U);
  EXPECT_EQ(journal_of(core_)["entries"][0]["outcome"], "missing_key");
  EXPECT_EQ(journal_of(core_)["entries"][1]["outcome"], "missing_key");
}

TEST_F(ProviderCoreTest, KeyHeaderNameIsCaseInsensitive) {
  HttpRequest request = make_request("POST", "/jobs", kOrder42);
  request.headers.emplace("idempotency-key", "key-A");
  EXPECT_EQ(core_.handle(request, Millis{0}).status, 201);
  EXPECT_EQ(lookup(core_, "key-A").status, 200);
}

TEST_F(ProviderCoreTest, KeyLongerThan255BytesIsInvalid) {
  install(core_, {"commit-then-error"});
  expect_error(post(core_, std::string(256, 'k'), kOrder42), 400, "idempotency_key_invalid");
  EXPECT_EQ(stored_count(core_), 0U);

  // 255 bytes is the longest key accepted, and the fault was not consumed by the 400.
  const std::string longest(255, 'k');
  expect_error(post(core_, longest, kOrder42), 503, "temporarily_unavailable");
  EXPECT_EQ(lookup(core_, longest).status, 200);
}

TEST_F(ProviderCoreTest, KeyOf255MultiByteBytesIsAccepted) {
  // 85 three-byte characters: 255 bytes; one more byte is too long.
  std::string key;
  for (int i = 0; i < 85; ++i)
    key += "\xe2\x82\xac";  // U+20AC EURO SIGN
  ASSERT_EQ(key.size(), 255U);
  EXPECT_EQ(post(core_, key, kOrder42).status, 201);
  expect_error(post(core_, key + "x", kOrder42), 400, "idempotency_key_invalid");
}

TEST_F(ProviderCoreTest, KeyWithControlCharacterIsInvalid) {
  for (const std::string& key :
       {std::string("a\tb"), std::string("a\nb"), std::string("\x01"), std::string("key\x7f"),
        std::string("k\x1f"), std::string("a\0b", 3)}) {
    SCOPED_TRACE(json(key).dump());
    expect_error(post(core_, key, kOrder42), 400, "idempotency_key_invalid");
  }
  EXPECT_EQ(stored_count(core_), 0U);
  EXPECT_EQ(post(core_, "key with spaces ~!@#$%^&*()", kOrder42).status, 201);
}

// ---- body validation -------------------------------------------------------------------

TEST_F(ProviderCoreTest, MalformedJsonIs400WithDetail) {
  install(core_, {"commit-then-error"});
  for (const std::string body :
       {"{", R"({"a":})", "not json", R"({"a":1} trailing)", R"({'a':1})", R"({"a":1,})", "   "}) {
    SCOPED_TRACE(body);
    const Decision decision = post(core_, "key-A", body);
    expect_error(decision, 400, "invalid_json");
    ASSERT_TRUE(body_of(decision).contains("detail"));
  }
  EXPECT_EQ(stored_count(core_), 0U);
  expect_error(post(core_, "key-A", kOrder42), 503, "temporarily_unavailable");  // not consumed
}

TEST_F(ProviderCoreTest, NonObjectBodyIs400WithDetail) {
  for (const std::string body : {"[1,2]", "[]", "42", "-1.5", R"("order-42")", "null", "true"}) {
    SCOPED_TRACE(body);
    const Decision decision = post(core_, "key-A", body);
    expect_error(decision, 400, "invalid_json");
    ASSERT_TRUE(body_of(decision).contains("detail"));
    EXPECT_NE(body_of(decision)["detail"].get<std::string>().find("object"), std::string::npos);
  }
  EXPECT_EQ(stored_count(core_), 0U);
}

TEST_F(ProviderCoreTest, NumberOutOfRangeIs400InvalidJson) {
  // 1e400 is valid JSON grammar but overflows a double: a careful provider answers 400,
  // it does not let the parser's exception escape handle().
  Decision decision;
  ASSERT_NO_THROW(decision = post(core_, "key-A", R"({"orderId":"o","amount":1e400})"));
  expect_error(decision, 400, "invalid_json");
  EXPECT_EQ(stored_count(core_), 0U);
  const json journal = journal_of(core_);
  ASSERT_EQ(journal["count"], 1);
  EXPECT_EQ(journal["entries"][0]["outcome"], "invalid");
  EXPECT_EQ(journal["entries"][0]["status"], 400);
}

// The parser stops at a NUL byte: without a check, the tail after it would go unread and a
// changed payload would replay as the stored one.
TEST_F(ProviderCoreTest, ANulByteOrTrailingTextInTheBodyIs400) {
  ASSERT_EQ(post(core_, "key-A", R"({"orderId":"a"})").status, 201);
  const std::string with_nul("{\"orderId\":\"a\"}\0{\"amount\":999}", 30);
  const Decision nul = post(core_, "key-A", with_nul);
  expect_error(nul, 400, "invalid_json");
  EXPECT_EQ(body_of(nul)["detail"],
            "the body has a NUL byte at offset 15, which JSON text cannot contain");
  expect_error(post(core_, "key-A", R"({"orderId":"a"} {"amount":999})"), 400, "invalid_json");
  EXPECT_EQ(stored_count(core_), 1U);
}

TEST_F(ProviderCoreTest, EmptyBodyCountsAsEmptyObject) {
  const Decision created = post(core_, "key-A", "");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(body_of(created), json({{"id", job_id_of(created)}}));

  const Decision replay = post(core_, "key-A", "{}");
  EXPECT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(replay.body, created.body);
  EXPECT_EQ(post(core_, "key-A", " { } ").status, 200);

  const json journal = journal_of(core_);
  EXPECT_EQ(journal["entries"][0]["fingerprint"], sha256_hex("{}"));
  EXPECT_EQ(journal["entries"][1]["fingerprint"], sha256_hex("{}"));
}

TEST(ProviderCoreLimits, BodyLargerThanTheLimitIs413) {
  ProviderConfig config = config_with(kSeed);
  config.max_body_bytes = 32;
  ProviderCore core(config);
  install(core, {"commit-then-error"});

  // {"orderId":"xx...x"} is 14 bytes of frame and the x's.
  const std::string too_large = R"({"orderId":")" + std::string(19, 'x') + R"("})";
  ASSERT_EQ(too_large.size(), 33U);
  expect_error(post(core, "key-A", too_large), 413, "payload_too_large");
  // Too large even when it is not JSON at all: the size is checked first.
  expect_error(post(core, "key-B", std::string(33, '[')), 413, "payload_too_large");
  EXPECT_EQ(stored_count(core), 0U);

  const std::string at_limit = R"({"orderId":")" + std::string(18, 'x') + R"("})";
  ASSERT_EQ(at_limit.size(), 32U);
  expect_error(post(core, "key-A", at_limit), 503, "temporarily_unavailable");  // not consumed
  EXPECT_EQ(stored_count(core), 1U);
}

TEST(ProviderCoreLimits, DefaultLimitIsOneMebibyte) {
  ProviderCore core(config_with(kSeed));
  EXPECT_EQ(core.config().max_body_bytes, 1024U * 1024U);
  const std::string at_limit = "{" + std::string(1024 * 1024 - 7, ' ') + R"("a":1})";
  ASSERT_EQ(at_limit.size(), 1024U * 1024U);
  EXPECT_EQ(post(core, "key-A", at_limit).status, 201);
  expect_error(post(core, "key-B", at_limit + " "), 413, "payload_too_large");
}

// ---- new, replay, reuse ----------------------------------------------------------------

TEST_F(ProviderCoreTest, NewKeyIs201WithTheJob) {
  const Decision decision = post(core_, "key-A", kOrder42);
  EXPECT_EQ(decision.delivery, Delivery::respond);
  ASSERT_EQ(decision.status, 201) << decision.body;
  EXPECT_EQ(decision.content_type, "application/json");
  EXPECT_FALSE(header_of(decision, "Idempotent-Replayed").has_value());

  const json body = body_of(decision);
  EXPECT_TRUE(is_job_id(body["id"])) << body;
  EXPECT_EQ(body, json({{"id", body["id"]}, {"orderId", "order-42"}}));
  EXPECT_EQ(stored_count(core_), 1U);
}

TEST_F(ProviderCoreTest, NewJobOmitsOrderIdWhenThePayloadHasNone) {
  const Decision decision = post(core_, "key-A", R"({"paymentId":"pay-1","amount":5})");
  ASSERT_EQ(decision.status, 201) << decision.body;
  const json body = body_of(decision);
  EXPECT_EQ(body, json({{"id", body["id"]}}));
  EXPECT_TRUE(is_job_id(body["id"]));
}

TEST_F(ProviderCoreTest, NewJobEchoesOrderIdAsSent) {
  const Decision number = post(core_, "key-A", R"({"orderId":42})");
  ASSERT_EQ(number.status, 201);
  EXPECT_EQ(body_of(number)["orderId"], 42);
  const Decision object = post(core_, "key-B", R"({"orderId":{"b":1,"a":"x"}})");
  ASSERT_EQ(object.status, 201);
  EXPECT_EQ(body_of(object)["orderId"], json({{"a", "x"}, {"b", 1}}));
}

TEST_F(ProviderCoreTest, SameKeySamePayloadIs200ReplayAndConsumesNoFault) {
  const Decision created = post(core_, "key-A", kOrder42);
  ASSERT_EQ(created.status, 201);
  install(core_, {"commit-then-error"});

  for (int i = 0; i < 3; ++i) {
    const Decision replay = post(core_, "key-A", kOrder42);
    EXPECT_EQ(replay.status, 200) << replay.body;
    EXPECT_EQ(header_of(replay, "Idempotent-Replayed"), std::optional<std::string>("true"));
    EXPECT_EQ(body_of(replay), body_of(created));
  }
  EXPECT_EQ(stored_count(core_), 1U);
  // The fault installed before the replays is still the next one.
  expect_error(post(core_, "key-B", kOrder42), 503, "temporarily_unavailable");
  EXPECT_EQ(stored_count(core_), 2U);
}

TEST_F(ProviderCoreTest, SameKeyChangedPayloadIs422AndLeavesTheJobUntouched) {
  const Decision created = post(core_, "key-A", kOrder42);
  ASSERT_EQ(created.status, 201);
  install(core_, {"commit-then-error"});

  const std::string changed = R"({"orderId":"order-43","paymentId":"pay-42","amount":120})";
  expect_error(post(core_, "key-A", changed), 422, "idempotency_key_reused_with_different_payload");
  expect_error(post(core_, "key-A", R"({"orderId":"order-42","paymentId":"pay-42","amount":121})"),
               422, "idempotency_key_reused_with_different_payload");
  expect_error(post(core_, "key-A", ""), 422, "idempotency_key_reused_with_different_payload");

  // The stored job is the first one, and the original payload still replays.
  const Decision found = lookup(core_, "key-A");
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(body_of(found), body_of(created));
  EXPECT_EQ(
      jobs_of(core_),
      json({{"count", 1},
            {"jobs", {{{"key", "key-A"}, {"id", job_id_of(created)}, {"orderId", "order-42"}}}}}));
  EXPECT_EQ(post(core_, "key-A", kOrder42).status, 200);
  // No fault consumed by the 422s.
  expect_error(post(core_, "key-B", kOrder42), 503, "temporarily_unavailable");
}

TEST_F(ProviderCoreTest, KeyOrderAndWhiteSpaceDifferencesAreAReplay) {
  const Decision created =
      post(core_, "key-A", R"({"orderId":"order-42","meta":{"x":1,"y":[1,2]},"amount":120})");
  ASSERT_EQ(created.status, 201);
  const Decision replay =
      post(core_, "key-A",
           "{\n  \"amount\" : 120,\t\"meta\": { \"y\": [ 1 , 2 ], \"x\": 1 },\r\n"
           "  \"orderId\": \"order-42\"\n}\n");
  EXPECT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(header_of(replay, "Idempotent-Replayed"), std::optional<std::string>("true"));
  EXPECT_EQ(body_of(replay), body_of(created));
}

// ---- faults ----------------------------------------------------------------------------

TEST_F(ProviderCoreTest, FailBeforeCommitIs503AndStoresNothing) {
  install(core_, {"fail-before-commit"});
  expect_error(post(core_, "key-A", kOrder42), 503, "temporarily_unavailable");
  EXPECT_EQ(stored_count(core_), 0U);
  EXPECT_EQ(lookup(core_, "key-A").status, 404);

  // The retry with the same key is a new operation, which now gets `none`.
  const Decision retry = post(core_, "key-A", kOrder42);
  ASSERT_EQ(retry.status, 201) << retry.body;
  EXPECT_EQ(body_of(retry)["orderId"], "order-42");
  EXPECT_EQ(stored_count(core_), 1U);
  EXPECT_EQ(body_of(lookup(core_, "key-A")), body_of(retry));
}

TEST_F(ProviderCoreTest, CommitThenErrorIs503ButStoresTheJob) {
  install(core_, {"commit-then-error"});
  expect_error(post(core_, "key-A", kOrder42), 503, "temporarily_unavailable");
  EXPECT_EQ(stored_count(core_), 1U);

  const Decision found = lookup(core_, "key-A");
  ASSERT_EQ(found.status, 200);
  const Decision retry = post(core_, "key-A", kOrder42);
  EXPECT_EQ(retry.status, 200) << retry.body;
  EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), std::optional<std::string>("true"));
  EXPECT_EQ(body_of(retry), body_of(found));
  EXPECT_EQ(stored_count(core_), 1U);
}

TEST_F(ProviderCoreTest, CommitThenDropDropsTheConnectionButStoresTheJob) {
  install(core_, {"commit-then-drop"});
  const Decision dropped = post(core_, "key-A", kOrder42);
  EXPECT_EQ(dropped.delivery, Delivery::drop);
  EXPECT_EQ(stored_count(core_), 1U);

  const Decision found = lookup(core_, "key-A");
  ASSERT_EQ(found.status, 200);
  EXPECT_EQ(body_of(found)["orderId"], "order-42");
  const Decision retry = post(core_, "key-A", kOrder42);
  EXPECT_EQ(retry.delivery, Delivery::respond);
  EXPECT_EQ(retry.status, 200);
  EXPECT_EQ(body_of(retry), body_of(found));
}

TEST_F(ProviderCoreTest, ScriptIsConsumedOneFaultPerNewOperation) {
  install(core_, {"commit-then-error", "fail-before-commit", "commit-then-drop"});
  EXPECT_EQ(post(core_, "k1", "{}").status, 503);
  EXPECT_EQ(post(core_, "k1", "{}").status, 200);  // replay: consumes nothing
  EXPECT_EQ(post(core_, "k2", "{}").status, 503);
  EXPECT_EQ(post(core_, "k3", "{}").delivery, Delivery::drop);
  EXPECT_EQ(post(core_, "k4", "{}").status, 201);  // script exhausted: `none`
  EXPECT_EQ(post(core_, "k2", "{}").status, 201);  // k2 was never stored
  EXPECT_EQ(stored_count(core_), 4U);
}

// ---- reconciliation lookup -------------------------------------------------------------

TEST_F(ProviderCoreTest, LookupIs200WithTheStoredJob) {
  const Decision created = post(core_, "key-A", kOrder42);
  ASSERT_EQ(created.status, 201);
  const Decision found = lookup(core_, "key-A");
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(found.body, created.body);
  EXPECT_FALSE(header_of(found, "Idempotent-Replayed").has_value());
}

TEST_F(ProviderCoreTest, LookupIs404WhenNothingWasStored) {
  const Decision miss = lookup(core_, "key-A");
  EXPECT_EQ(miss.status, 404);
  EXPECT_EQ(body_of(miss), json({{"error", "not_found"}}));  // the baseline body, exactly
  ASSERT_EQ(post(core_, "key-A", kOrder42).status, 201);
  expect_error(lookup(core_, "key-a"), 404, "not_found");  // keys are case-sensitive
  expect_error(lookup(core_, "key-B"), 404, "not_found");
}

TEST_F(ProviderCoreTest, LookupKeyMayContainSlashesAndSpaces) {
  // The adapter percent-decodes; the core sees the key as the client wrote it.
  ASSERT_EQ(post(core_, "order/42 retry#1", kOrder42).status, 201);
  EXPECT_EQ(lookup(core_, "order/42 retry#1").status, 200);
}

TEST_F(ProviderCoreTest, HeadIsTreatedAsGet) {
  const Decision created = post(core_, "key-A", kOrder42);
  ASSERT_EQ(created.status, 201);

  const Decision hit = call(core_, "HEAD", "/jobs/by-idempotency-key/key-A");
  EXPECT_EQ(hit.status, 200);
  EXPECT_EQ(hit.body, created.body);  // the adapter strips the body on the wire
  expect_error(call(core_, "HEAD", "/jobs/by-idempotency-key/key-B"), 404, "not_found");
  EXPECT_EQ(call(core_, "HEAD", "/_test/jobs").status, 200);
  EXPECT_EQ(call(core_, "HEAD", "/_test/journal").status, 200);

  const json entries = journal_of(core_)["entries"];
  ASSERT_EQ(entries.size(), 3U);
  EXPECT_EQ(entries[1]["method"], "HEAD");
  EXPECT_EQ(entries[1]["outcome"], "lookup_hit");
  EXPECT_EQ(entries[2]["outcome"], "lookup_miss");
}

// ---- routing ---------------------------------------------------------------------------

TEST_F(ProviderCoreTest, UnknownPathIs404NotFound) {
  for (const std::string path :
       {"/", "/job", "/jobs/", "/jobs/123", "/jobs/by-idempotency-key", "/jobs/by-idempotency-key/",
        "/JOBS", "/_test", "/_test/", "/_test/nope", "/_test/jobs/", "/x/jobs"}) {
    for (const std::string method : {"GET", "POST"}) {
      SCOPED_TRACE(method + " " + path);
      const Decision decision = call(core_, method, path, "{}");
      EXPECT_EQ(decision.status, 404);
      EXPECT_EQ(body_of(decision)["error"], "not_found");
    }
  }
  // The baseline body, exactly, for data-plane paths.
  EXPECT_EQ(body_of(get(core_, "/nope")), json({{"error", "not_found"}}));
  EXPECT_EQ(stored_count(core_), 0U);
}

TEST_F(ProviderCoreTest, WrongMethodIs405WithAllow) {
  struct Case {
    std::string method;
    std::string path;
    std::string allow;
  };
  const std::vector<Case> cases = {
      {"GET", "/jobs", "POST"},
      {"HEAD", "/jobs", "POST"},
      {"PUT", "/jobs", "POST"},
      {"DELETE", "/jobs", "POST"},
      {"PATCH", "/jobs", "POST"},
      {"POST", "/jobs/by-idempotency-key/key-A", "GET"},
      {"PUT", "/jobs/by-idempotency-key/key-A", "GET"},
      {"DELETE", "/jobs/by-idempotency-key/key-A", "GET"},
      {"DELETE", "/_test/faults", "GET, POST"},
      {"PUT", "/_test/faults", "GET, POST"},
      {"POST", "/_test/jobs", "GET"},
      {"DELETE", "/_test/jobs", "GET"},
      {"POST", "/_test/journal", "GET"},
      {"GET", "/_test/reset", "POST"},
  };
  ASSERT_EQ(post(core_, "key-A", kOrder42).status, 201);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.method + " " + c.path);
    const Decision decision = call(core_, c.method, c.path, "{}");
    expect_error(decision, 405, "method_not_allowed");
    EXPECT_EQ(header_of(decision, "Allow"), std::optional<std::string>(c.allow));
  }
  // None of them changed anything.
  EXPECT_EQ(stored_count(core_), 1U);
  EXPECT_EQ(lookup(core_, "key-A").status, 200);
}

// ---- determinism -----------------------------------------------------------------------

TEST(ProviderCoreDeterminism, SameSeedAndRequestsGiveIdenticalJobIds) {
  const auto run = [](std::uint64_t seed) {
    ProviderCore core(config_with(seed));
    install(core, {"none", "fail-before-commit", "commit-then-error", "commit-then-drop"});
    for (int i = 0; i < 20; ++i) {
      const std::string key = "key-" + std::to_string(i % 7);
      post(core, key, R"({"orderId":"order-)" + std::to_string(i % 7) + R"("})");
    }
    return jobs_of(core);
  };
  const json first = run(2024);
  const json second = run(2024);
  EXPECT_EQ(first["count"], 7);
  EXPECT_EQ(first, second);
  for (const auto& job : first["jobs"])
    EXPECT_TRUE(is_job_id(job["id"])) << job;

  const json other_seed = run(2025);
  EXPECT_EQ(other_seed["count"], 7);
  EXPECT_NE(first["jobs"][0]["id"], other_seed["jobs"][0]["id"]);
}

TEST(ProviderCoreDeterminism, JobIdsAreUniqueAcrossKeys) {
  ProviderCore core(config_with(0));
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i)
    ids.push_back(job_id_of(post(core, "k" + std::to_string(i), "{}")));
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

// ---- log -------------------------------------------------------------------------------

TEST_F(ProviderCoreTest, LogUsesTheOriginalWords) {
  install(core_, {"commit-then-error"});
  post(core_, "key-B", kOrder42);
  const std::string id = job_id_of(post(core_, "key-B", kOrder42));
  post(core_, "key-B", R"({"orderId":"order-43"})");
  post(core_, "key-C", kOrder42);

  EXPECT_EQ(log_lines_, (std::vector<std::string>{
                            "[provider] key=\"key-B\" NEW fault=commit-then-error",
                            "[provider] key=\"key-B\" REPLAY job=" + id,
                            "[provider] key=\"key-B\" REJECTED (payload changed)",
                            "[provider] key=\"key-C\" NEW fault=none",
                        }));
}

TEST_F(ProviderCoreTest, LogNeverContainsThePayload) {
  const std::string secret = "4111111111111111";
  const std::string payload = R"({"orderId":"order-42","card":")" + secret + R"("})";
  install(core_, {"commit-then-drop"});
  post(core_, "key-A", payload);
  post(core_, "key-A", payload);
  post(core_, "key-A", R"({"card":")" + secret + R"(0"})");
  post(core_, "key-B", R"({"card":")" + secret);     // malformed JSON
  post(core_, "key-C", R"([")" + secret + R"("])");  // not an object
  post_without_key(core_, payload);
  lookup(core_, "key-A");
  lookup(core_, "key-Z");

  ASSERT_EQ(log_lines_.size(), 8U);  // one line per data-plane request
  for (const auto& line : log_lines_) {
    EXPECT_EQ(line.find(secret), std::string::npos) << line;
    EXPECT_EQ(line.find("order-42"), std::string::npos) << line;
    EXPECT_TRUE(line.starts_with("[provider] ")) << line;
  }
}

// ---- robustness --------------------------------------------------------------------------

using ProviderCoreDeathTest = ProviderCoreTest;

TEST_F(ProviderCoreDeathTest, DeeplyNestedPayloadUnderTheLimitIs400NotACrash) {
  // 1 MB of nesting is within the default 1 MiB limit; the provider must refuse it, not
  // overflow its stack computing the fingerprint. Run in a child so a crash is a failure.
  constexpr std::size_t kDepth = 500000;
  const std::string payload =
      R"({"a":)" + std::string(kDepth, '[') + std::string(kDepth, ']') + "}";
  ASSERT_LE(payload.size(), core_.config().max_body_bytes);
  EXPECT_EXIT(
      {
        const Decision decision = post(core_, "key-A", payload);
        const bool refused = decision.status == 400 && json::parse(decision.body)["detail"] ==
                                                           "the body nests deeper than 128 levels";
        std::exit(refused ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(ProviderCoreTest, NestingUpToTheLimitIsAccepted) {
  const std::string payload = R"({"a":)" + std::string(127, '[') + std::string(127, ']') + "}";
  EXPECT_EQ(post(core_, "key-A", payload).status, 201);
}

TEST_F(ProviderCoreTest, TheNestingLimitFallsAtTheSameValueWhicheverWayTheBodyIsParsed) {
  // A body that opens at most 128 containers skips the depth check's parser; one more
  // takes it. A value in the 128th container is accepted, one in the 129th refused.
  const auto nested = [](std::size_t arrays) {
    return R"({"a":)" + std::string(arrays, '[') + "1" + std::string(arrays, ']') + "}";
  };
  EXPECT_EQ(post(core_, "key-A", nested(127)).status, 201);
  const Decision deeper = post(core_, "key-B", nested(128));
  EXPECT_EQ(deeper.status, 400);
  EXPECT_EQ(json::parse(deeper.body)["detail"], "the body nests deeper than 128 levels");
  // Brackets in a string are text, not nesting; an escaped quote does not end the string.
  EXPECT_EQ(post(core_, "key-C", R"({"a":"\")" + std::string(300, '[') + R"("})").status, 201);
}

}  // namespace
}  // namespace retryproof::provider
