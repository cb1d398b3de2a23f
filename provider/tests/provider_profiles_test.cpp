// The conformance profiles: the same requests under baseline, stripe and ietf, and where
// the answers differ.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "provider/http_types.hpp"
#include "provider/profile.hpp"
#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// The helpers the ProviderCore tests share (core_test_support.hpp). This file's tests
// check no more of the control answers than they need: see testing::Checks.
using namespace provider::testing;

// ---- this file's helpers ---------------------------------------------------------------

const std::optional<std::string> kReplayed("true");

ProviderConfig config_for(Profile profile) {
  ProviderConfig config;
  config.seed = 42;
  config.profile = profile;
  return config;
}

std::string euros(int count) {
  std::string text;
  for (int i = 0; i < count; ++i)
    text += "\xe2\x82\xac";  // U+20AC EURO SIGN, three bytes
  return text;
}

// ---- profile names -----------------------------------------------------------------------

TEST(Profiles, NamesRoundTripAndUnknownNamesAreRefused) {
  for (const Profile profile : {Profile::baseline, Profile::stripe, Profile::ietf})
    EXPECT_EQ(parse_profile(to_string(profile)), profile);
  EXPECT_EQ(to_string(Profile::stripe), "stripe");
  try {
    parse_profile("Stripe");
    FAIL() << "parse_profile accepted \"Stripe\"";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "unknown profile \"Stripe\"; known profiles: baseline, stripe, ietf");
  }
}

// ---- what a retry after a fault replays ----------------------------------------------------

TEST(Profiles, CommitThenErrorThenRetryUnderEachProfile) {
  for (const Profile profile : {Profile::baseline, Profile::stripe, Profile::ietf}) {
    SCOPED_TRACE(to_string(profile));
    ProviderCore core(config_for(profile));
    install(core, {"commit-then-error"}, Checks::minimal);
    const Decision first = post(core, "key-A", kOrder42);
    ASSERT_EQ(first.status, 503);
    const Decision found = lookup(core, "key-A");
    ASSERT_EQ(found.status, 200);  // under every profile the job exists
    json job = body_of(found);
    EXPECT_EQ(job["orderId"], "order-42");

    const Decision retry = post(core, "key-A", kOrder42);
    EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), kReplayed);
    if (profile == Profile::stripe) {
      // Stripe replays the first response as it was, 503 included.
      EXPECT_EQ(retry.status, 503);
      EXPECT_EQ(retry.body, first.body);
      EXPECT_EQ(body_of(retry), json({{"error", "temporarily_unavailable"}}));
    } else {
      EXPECT_EQ(retry.status, 200);
      EXPECT_EQ(body_of(retry), job);
    }
    EXPECT_EQ(stored_count(core, Checks::minimal), 1U);
  }
}

TEST(Profiles, StripeReplaysA500AsA500) {
  ProviderCore core(config_for(Profile::stripe));
  install(core, {"commit-then-500"}, Checks::minimal);
  const Decision first = post(core, "key-A", kOrder42);
  ASSERT_EQ(first.status, 500);
  const Decision retry = post(core, "key-A", kOrder42);
  EXPECT_EQ(retry.status, 500);
  EXPECT_EQ(body_of(retry), json({{"error", "internal_error"}}));
  EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), kReplayed);
  EXPECT_EQ(lookup(core, "key-A").status, 200);
}

TEST(Profiles, CommitThenDropThenRetryUnderStripeReplaysThe201) {
  ProviderCore core(config_for(Profile::stripe));
  install(core, {"commit-then-drop"}, Checks::minimal);
  ASSERT_EQ(post(core, "key-A", kOrder42).delivery, Delivery::drop);
  json job = body_of(lookup(core, "key-A"));

  const Decision retry = post(core, "key-A", kOrder42);
  EXPECT_EQ(retry.delivery, Delivery::respond);
  EXPECT_EQ(retry.status, 201);
  EXPECT_EQ(body_of(retry), job);
  EXPECT_EQ(job["orderId"], "order-42");
  EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), kReplayed);

  // The baseline answers the same retry with 200.
  ProviderCore baseline(config_for(Profile::baseline));
  install(baseline, {"commit-then-drop"}, Checks::minimal);
  post(baseline, "key-A", kOrder42);
  const Decision baseline_retry = post(baseline, "key-A", kOrder42);
  EXPECT_EQ(baseline_retry.status, 200);
  EXPECT_EQ(baseline_retry.body, retry.body);  // same seed, same job
}

TEST(Profiles, StripeReplaysA201AfterAPlainCreate) {
  ProviderCore core(config_for(Profile::stripe));
  const Decision created = post(core, "key-A", kOrder42);
  ASSERT_EQ(created.status, 201);
  const Decision retry = post(core, "key-A", kOrder42);
  EXPECT_EQ(retry.status, 201);
  EXPECT_EQ(retry.body, created.body);
  EXPECT_EQ(header_of(retry, "Idempotent-Replayed"), kReplayed);
}

TEST(Profiles, StripeReplaysTheHeldRequestsCommitted201) {
  ProviderCore core(config_for(Profile::stripe));
  install(core, {"delay-before-commit:1s"}, Checks::minimal);
  const Decision held = post(core, "key-A", kOrder42);
  ASSERT_TRUE(held.pending_commit.has_value());
  const Decision committed = core.complete(*held.pending_commit, Millis{1'000});
  ASSERT_EQ(committed.status, 201);
  const Decision retry = post(core, "key-A", kOrder42, Millis{1'100});
  EXPECT_EQ(retry.status, 201);
  EXPECT_EQ(retry.body, committed.body);
}

TEST(Profiles, FailBeforeCommitUnderStripeRecordsNothing) {
  ProviderCore core(config_for(Profile::stripe));
  install(core, {"fail-before-commit"}, Checks::minimal);
  ASSERT_EQ(post(core, "key-A", kOrder42).status, 503);
  EXPECT_EQ(stored_count(core, Checks::minimal), 0U);
  EXPECT_EQ(lookup(core, "key-A").status, 404);

  const Decision retry = post(core, "key-A", kOrder42);
  EXPECT_EQ(retry.status, 201);
  EXPECT_FALSE(header_of(retry, "Idempotent-Replayed").has_value());
  EXPECT_EQ(body_of(retry)["orderId"], "order-42");
  EXPECT_EQ(stored_count(core, Checks::minimal), 1U);
}

TEST(Profiles, RateLimitedUnderStripeRecordsNothing) {
  ProviderCore core(config_for(Profile::stripe));
  install(core, {"rate-limited:2"}, Checks::minimal);
  ASSERT_EQ(post(core, "key-A", kOrder42).status, 429);
  const Decision retry = post(core, "key-A", kOrder42);
  EXPECT_EQ(retry.status, 201);
  EXPECT_FALSE(header_of(retry, "Idempotent-Replayed").has_value());
}

// ---- ietf keys -----------------------------------------------------------------------------

TEST(Profiles, IetfQuotedKeyIsTheUnquotedKey) {
  ProviderCore core(config_for(Profile::ietf));
  const Decision created = post(core, "\"abc\"", kOrder42);
  ASSERT_EQ(created.status, 201) << created.body;

  const Decision found = lookup(core, "abc");
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(found.body, created.body);
  const Decision unquoted = post(core, "abc", kOrder42);
  EXPECT_EQ(unquoted.status, 200);
  EXPECT_EQ(unquoted.body, created.body);
  EXPECT_EQ(header_of(unquoted, "Idempotent-Replayed"), kReplayed);
  const Decision quoted_again = post(core, "\"abc\"", kOrder42);
  EXPECT_EQ(quoted_again.status, 200);

  json jobs = body_of(call(core, "GET", "/_test/jobs"));
  EXPECT_EQ(jobs["count"], 1);
  EXPECT_EQ(jobs["jobs"][0]["key"], "abc");
  EXPECT_EQ(body_of(call(core, "GET", "/_test/journal"))["entries"][0]["key"], "abc");
}

TEST(Profiles, BaselineKeepsTheQuotesAsPartOfTheKey) {
  ProviderCore core(config_for(Profile::baseline));
  ASSERT_EQ(post(core, "\"abc\"", kOrder42).status, 201);
  EXPECT_EQ(lookup(core, "abc").status, 404);
  EXPECT_EQ(lookup(core, "\"abc\"").status, 200);
  EXPECT_EQ(post(core, "abc", kOrder42).status, 201);  // another operation
}

TEST(Profiles, IetfUnescapesQuotedKeysAndRefusesBadQuoting) {
  ProviderCore core(config_for(Profile::ietf));
  ASSERT_EQ(post(core, R"("a\"b\\c")", kOrder42).status, 201);
  EXPECT_EQ(lookup(core, R"(a"b\c)").status, 200);

  for (const std::string key : {R"("a"b")", R"("a\b")", R"("abc\")", R"("")"}) {
    SCOPED_TRACE(key);
    const Decision refused = post(core, key, kOrder42);
    EXPECT_EQ(refused.status, 400);
    EXPECT_EQ(body_of(refused)["error"], "idempotency_key_invalid");
  }
  EXPECT_EQ(stored_count(core, Checks::minimal), 1U);
}

TEST(Profiles, IetfRefusesTwoIdempotencyKeyHeaders) {
  ProviderCore core(config_for(Profile::ietf));
  install(core, {"commit-then-error"}, Checks::minimal);
  HttpRequest request = make_request("POST", "/jobs", kOrder42);
  request.headers.emplace("Idempotency-Key", "key-A");
  request.headers.emplace("idempotency-key", "key-B");
  const Decision refused = core.handle(request, Millis{0});
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.content_type, "application/problem+json");
  EXPECT_EQ(body_of(refused), json({{"type", "urn:retryproof:problem:idempotency_key_invalid"},
                                    {"title", "Idempotency-Key is malformed"},
                                    {"status", 400},
                                    {"detail", "send exactly one Idempotency-Key header"},
                                    {"error", "idempotency_key_invalid"}}));
  EXPECT_EQ(stored_count(core, Checks::minimal), 0U);
  EXPECT_EQ(post(core, "key-A", kOrder42).status, 503);  // no fault consumed
}

// Two different keys name two operations; no profile picks one of them.
TEST(Profiles, EveryProfileRefusesTwoDifferentIdempotencyKeys) {
  for (const ProfileRules& rules : profile_catalogue()) {
    SCOPED_TRACE(std::string(rules.name));
    ProviderCore core(config_for(rules.profile));
    HttpRequest request = make_request("POST", "/jobs", kOrder42);
    request.headers.emplace("Idempotency-Key", "key-A");
    request.headers.emplace("Idempotency-Key", "key-B");
    const Decision refused = core.handle(request, Millis{0});
    EXPECT_EQ(refused.status, 400);
    EXPECT_EQ(body_of(refused)["error"], "idempotency_key_invalid");
    EXPECT_EQ(stored_count(core, Checks::minimal), 0U);
  }
}

TEST(Profiles, BaselineTakesTheSameKeySentTwice) {
  ProviderCore core(config_for(Profile::baseline));
  HttpRequest request = make_request("POST", "/jobs", kOrder42);
  request.headers.emplace("Idempotency-Key", "key-A");
  request.headers.emplace("Idempotency-Key", "key-A");
  EXPECT_EQ(core.handle(request, Millis{0}).status, 201);
}

// ---- error shapes ------------------------------------------------------------------------

// The errors a client meets most, provoked the same way under a profile.
struct Errors {
  Decision missing_key;
  Decision in_flight;
  Decision changed_payload;
  Decision lookup_miss;
  Decision unknown_path;
  std::string job_id;
};

Errors provoke_errors(Profile profile) {
  ProviderCore core(config_for(profile));
  Errors errors;
  errors.missing_key = post_without_key(core, kOrder42);
  const Decision created = post(core, "key-A", kOrder42);
  errors.job_id = body_of(created)["id"];
  errors.changed_payload = post(core, "key-A", R"({"orderId":"order-43"})");
  install(core, {"delay-before-commit:1s"}, Checks::minimal);
  post(core, "key-H", kOrder42);  // held in flight
  errors.in_flight = post(core, "key-H", kOrder42);
  errors.lookup_miss = lookup(core, "key-Z");
  errors.unknown_path = call(core, "GET", "/nope");
  return errors;
}

json problem(const std::string& code, const std::string& title, int status,
             const std::string& detail) {
  return {{"type", "urn:retryproof:problem:" + code},
          {"title", title},
          {"status", status},
          {"detail", detail},
          {"error", code}};
}

TEST(Profiles, IetfErrorsAreProblemDetails) {
  const Errors errors = provoke_errors(Profile::ietf);
  for (const Decision* decision : {&errors.missing_key, &errors.in_flight, &errors.changed_payload,
                                   &errors.lookup_miss, &errors.unknown_path}) {
    EXPECT_EQ(decision->content_type, "application/problem+json") << decision->body;
  }
  EXPECT_EQ(errors.missing_key.status, 400);
  EXPECT_EQ(body_of(errors.missing_key),
            problem("idempotency_key_required", "Idempotency-Key is missing", 400,
                    "send an Idempotency-Key header naming the logical operation"));
  EXPECT_EQ(errors.in_flight.status, 409);
  EXPECT_EQ(body_of(errors.in_flight),
            problem("idempotency_key_in_flight",
                    "A request with this Idempotency-Key is still being processed", 409,
                    "the first request with this key is still being processed; retry later"));
  EXPECT_EQ(errors.changed_payload.status, 422);
  EXPECT_EQ(body_of(errors.changed_payload),
            problem("idempotency_key_reused_with_different_payload",
                    "Idempotency-Key was already used with a different payload", 422,
                    "this key created " + errors.job_id +
                        " with a different payload; a changed request needs a new key"));
  EXPECT_EQ(errors.lookup_miss.status, 404);
  EXPECT_EQ(body_of(errors.lookup_miss), problem("not_found", "Not found", 404, "Not found"));
  EXPECT_EQ(errors.unknown_path.status, 404);
  EXPECT_EQ(body_of(errors.unknown_path), problem("not_found", "Not found", 404, "Not found"));
}

TEST(Profiles, BaselineErrorsArePlainJson) {
  const Errors errors = provoke_errors(Profile::baseline);
  for (const Decision* decision : {&errors.missing_key, &errors.in_flight, &errors.changed_payload,
                                   &errors.lookup_miss, &errors.unknown_path}) {
    EXPECT_EQ(decision->content_type, "application/json") << decision->body;
  }
  EXPECT_EQ(errors.missing_key.status, 400);
  EXPECT_EQ(body_of(errors.missing_key),
            json({{"error", "idempotency_key_required"},
                  {"detail", "send an Idempotency-Key header naming the logical operation"}}));
  EXPECT_EQ(errors.in_flight.status, 409);
  EXPECT_EQ(
      body_of(errors.in_flight),
      json({{"error", "idempotency_key_in_flight"},
            {"detail", "the first request with this key is still being processed; retry later"}}));
  EXPECT_EQ(errors.changed_payload.status, 422);
  EXPECT_EQ(body_of(errors.changed_payload)["error"],
            "idempotency_key_reused_with_different_payload");
  EXPECT_EQ(body_of(errors.lookup_miss), json({{"error", "not_found"}}));
  EXPECT_EQ(body_of(errors.unknown_path), json({{"error", "not_found"}}));
}

TEST(Profiles, IetfFaultErrorsAreProblemDetailsToo) {
  ProviderCore core(config_for(Profile::ietf));
  install(core, {"rate-limited:3", "commit-then-error"}, Checks::minimal);
  const Decision limited = post(core, "key-A", kOrder42);
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.content_type, "application/problem+json");
  EXPECT_EQ(header_of(limited, "Retry-After"), std::optional<std::string>("3"));
  EXPECT_EQ(body_of(limited), problem("rate_limited", "Too many requests", 429,
                                      "slow down and retry after the Retry-After delay"));
  const Decision unavailable = post(core, "key-B", kOrder42);
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(body_of(unavailable), problem("temporarily_unavailable", "Temporarily unavailable", 503,
                                          "Temporarily unavailable"));
  // Success is still plain JSON.
  const Decision found = lookup(core, "key-B");
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(found.content_type, "application/json");
}

// ---- key length --------------------------------------------------------------------------

TEST(Profiles, StripeCountsKeyLengthInCharacters) {
  const std::string key255 = euros(255);  // 765 bytes
  ASSERT_EQ(key255.size(), 765U);

  ProviderCore stripe(config_for(Profile::stripe));
  EXPECT_EQ(post(stripe, key255, kOrder42).status, 201);
  EXPECT_EQ(lookup(stripe, key255).status, 200);
  const Decision too_long = post(stripe, euros(256), kOrder42);
  EXPECT_EQ(too_long.status, 400);
  EXPECT_EQ(
      body_of(too_long),
      json({{"error", "idempotency_key_invalid"},
            {"detail", "an Idempotency-Key has 1 to 255 characters and no control characters"}}));
  EXPECT_EQ(post(stripe, std::string(255, 'k'), kOrder42).status, 201);
  EXPECT_EQ(post(stripe, std::string(256, 'k'), kOrder42).status, 400);
  EXPECT_EQ(post(stripe, euros(3) + "\t", kOrder42).status, 400);

  for (const Profile bytes : {Profile::baseline, Profile::ietf}) {
    SCOPED_TRACE(to_string(bytes));
    ProviderCore core(config_for(bytes));
    const Decision refused = post(core, key255, kOrder42);
    EXPECT_EQ(refused.status, 400);
    EXPECT_EQ(body_of(refused)["error"], "idempotency_key_invalid");
    EXPECT_EQ(body_of(refused)["detail"],
              "an Idempotency-Key has 1 to 255 bytes and no control characters");
    EXPECT_EQ(post(core, euros(85), kOrder42).status, 201);  // 255 bytes
    EXPECT_EQ(stored_count(core, Checks::minimal), 1U);
  }
}

// Stripe counts characters by skipping UTF-8 continuation bytes; bytes that are not UTF-8
// at all must not make a key of any length count as short.
TEST(Profiles, StripeRefusesALongKeyThatIsNotUtf8) {
  ProviderCore stripe(config_for(Profile::stripe));
  const std::string not_utf8(1000, '\x80');  // 1000 bytes, no character starts in it
  const Decision decision = post(stripe, not_utf8, kOrder42);
  EXPECT_EQ(decision.status, 400) << decision.body;
  EXPECT_EQ(stored_count(stripe, Checks::minimal), 0U);
}

}  // namespace
}  // namespace retryproof::provider
