// API shapes: a shape file is read strictly, routes match as documented, and the core
// speaks the shape — routes, key place, encodings, created objects, errors — while the
// default shape stays the seeds' wire byte for byte.
#include "provider/api_shape.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/temp_dir.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::make_request;
using testing::shape_load_error;

TEST(ApiShapeFile, ErrorsNameTheFileThePathAndWhatWasExpected) {
  EXPECT_EQ(shape_load_error({{"creates", json::array()}}),
            "shape.json: $.creates: a shape has at least one create route");
  EXPECT_EQ(shape_load_error({{"creats", json::array()}}).substr(0, 31),
            "shape.json: $: unknown field \"c");
  EXPECT_EQ(shape_load_error({{"key", {{"header", "K"}, {"bodyField", "k"}}}}),
            "shape.json: $.key: the key is in a \"header\" (its name) or a \"bodyField\" (its "
            "dotted path), or \"none\" for an API without idempotency keys");
  EXPECT_EQ(shape_load_error({{"key", "nothing"}}).substr(0, 46),
            "shape.json: $.key: the key is in a \"header\" (i");
  EXPECT_EQ(shape_load_error({{"encodings", {"xml"}}}),
            "shape.json: $.encodings[0]: expected \"json\" or \"form\"");
  EXPECT_EQ(shape_load_error({{"lookups", {{{"method", "GET"}, {"path", "/jobs"}}}}}),
            "shape.json: $.lookups[0]: a lookup finds the key (or, without one, the operation "
            "field's value) in a path segment that is exactly {key}, in a \"queryParameter\" or in "
            "a \"bodyField\"");
  // A {key} inside a segment would match only its own text: refused, never a throw later.
  EXPECT_NE(shape_load_error({{"lookups", {{{"method", "GET"}, {"path", "/orders/{key}.json"}}}}})
                .find("exactly {key}"),
            std::string::npos);
  EXPECT_NE(
      shape_load_error({{"creates", {{{"method", "POST"}, {"path", "/o"}, {"list", "data"}}}}})
          .find("$.creates[0]: unknown field \"list\""),
      std::string::npos);
  EXPECT_EQ(shape_load_error({{"creates", {{{"method", "POST"}, {"path", "jobs"}}}}}),
            "shape.json: $.creates[0].path: a path begins with /");
  const std::string unknown_code =
      shape_load_error({{"errors", {{"codes", {{"no_such_code", {{"status", 400}}}}}}}});
  EXPECT_NE(unknown_code.find("$.errors.codes.no_such_code: not an error code of the provider"),
            std::string::npos)
      << unknown_code;
  EXPECT_NE(
      shape_load_error({{"errors", {{"format", "xml"}}}}).find("$.errors.format: expected one of"),
      std::string::npos);
  EXPECT_NE(shape_load_error({{"profile", "acme"}}).find("$.profile:"), std::string::npos);
}

TEST(ApiShapeFile, AMissingOrBrokenFileIsNamed) {
  EXPECT_THROW(
      {
        try {
          load_api_shape("no-such-shape.json");
        } catch (const std::invalid_argument& error) {
          EXPECT_EQ(std::string(error.what()),
                    "\"no-such-shape.json\" is neither a built-in shape (" + api_shape_names() +
                        ") nor a "
                        "readable shape file");
          throw;
        }
      },
      std::invalid_argument);
  const TempDir dir("retryproof-shape");
  const auto file = dir.write("broken.json", "{\"name\": ");
  try {
    load_api_shape(file.string());
    FAIL() << "a broken file was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()).rfind(file.string() + ": not valid JSON", 0), 0u)
        << error.what();
  }
}

TEST(Route, BracesMatchOneSegmentAndATrailingKeyTakesTheRest) {
  const Route any_resource{"POST", "/v1/{resource}"};
  EXPECT_TRUE(any_resource.match("/v1/payment_intents"));
  EXPECT_FALSE(any_resource.match("/v1/"));
  EXPECT_FALSE(any_resource.match("/v1/payment_intents/pi_1"));
  const Route by_key{"GET", "/jobs/by-idempotency-key/{key}"};
  EXPECT_EQ(by_key.match("/jobs/by-idempotency-key/order/42")->at("key"), "order/42");
  EXPECT_FALSE(by_key.match("/jobs/by-idempotency-key/"));
  EXPECT_FALSE(by_key.match("/jobs/by-key/a"));
}

TEST(ApiShape, FormAndJsonBodiesOfOneMeaningFingerprintAlike) {
  ApiShape both = api_shape_from_json({{"encodings", {"json", "form"}}}, "both");
  const json from_json = {{"amount", 120}, {"metadata", {{"order", "42"}}}};
  const json from_form = {{"metadata", {{"order", "42"}}}, {"amount", "120"}};
  EXPECT_EQ(both.canonical_payload(from_json), both.canonical_payload(from_form));
  // The jobs shape keeps JSON types: 120 and "120" are different payloads there.
  EXPECT_NE(jobs_shape().canonical_payload(from_json), jobs_shape().canonical_payload(from_form));
}

// ---- the core under a shape --------------------------------------------------------------

HttpRequest form_post(const std::string& path, const std::string& key, const std::string& body) {
  HttpRequest request = make_request("POST", path, body);
  request.headers.emplace("Content-Type", "application/x-www-form-urlencoded");
  if (!key.empty()) request.headers.emplace("Idempotency-Key", key);
  return request;
}

ProviderConfig stripe_config() {
  ProviderConfig config;
  config.api = stripe_shape();
  config.profile = *stripe_shape().profile;
  return config;
}

TEST(StripeShape, CreatesAPaymentIntentFromAFormBodyAndReplaysIt) {
  ProviderCore core(stripe_config());
  const std::string body = "amount=2000&currency=usd&metadata[order]=42";
  const Decision created = core.handle(form_post("/v1/payment_intents", "k1", body), Millis{0});
  ASSERT_EQ(created.status, 201) << created.body;
  const json intent = body_of(created);
  EXPECT_EQ(intent["object"], "payment_intent");
  EXPECT_EQ(intent["id"].get<std::string>().rfind("pi_", 0), 0u);
  EXPECT_EQ(intent["amount"], "2000");
  EXPECT_EQ(intent["metadata"]["order"], "42");

  // The same parameters in another order are the same request.
  const Decision replay = core.handle(
      form_post("/v1/payment_intents", "k1", "metadata%5Border%5D=42&currency=usd&amount=2000"),
      Millis{5});
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(replay.body, created.body);
  EXPECT_EQ(replay.headers.find("Idempotent-Replayed")->second, "true");
  EXPECT_EQ(core.job_count(), 1u);
  EXPECT_EQ(core.journal()[1].kind, RequestKind::create);
}

TEST(StripeShape, AChangedRequestIsAnIdempotencyErrorAsStripeWritesIt) {
  ProviderCore core(stripe_config());
  core.handle(form_post("/v1/payment_intents", "k1", "amount=2000&currency=usd"), Millis{0});
  const Decision changed =
      core.handle(form_post("/v1/payment_intents", "k1", "amount=9999&currency=usd"), Millis{1});
  EXPECT_EQ(changed.status, 400);
  const json error = body_of(changed)["error"];
  EXPECT_EQ(error["type"], "idempotency_error");
  EXPECT_EQ(error["code"], "idempotency_key_reused_with_different_payload");
  EXPECT_EQ(error["message"],
            "Keys for idempotent requests can only be used with the same parameters they were "
            "first used with.");
}

TEST(StripeShape, AConcurrentRequestIsA409KeyInUse) {
  ProviderConfig config = stripe_config();
  config.initial_plan = FaultPlan::from_json({{"faults", {"delay-before-commit:5s"}}});
  ProviderCore core(config);
  const Decision held = core.handle(form_post("/v1/payment_intents", "k1", "amount=1"), Millis{0});
  ASSERT_TRUE(held.pending_commit);
  const Decision second =
      core.handle(form_post("/v1/payment_intents", "k1", "amount=1"), Millis{1});
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(body_of(second)["error"]["code"], "idempotency_key_in_use");
  EXPECT_EQ(body_of(second)["error"]["type"], "idempotency_error");
}

TEST(StripeShape, RoutesCreatesOnAnyResourceAndHasNoLookup) {
  ProviderCore core(stripe_config());
  EXPECT_EQ(core.handle(form_post("/v1/customers", "c1", "email=a%40b.c"), Millis{0}).status, 201);
  const Decision unknown =
      core.handle(make_request("GET", "/jobs/by-idempotency-key/c1"), Millis{1});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(body_of(unknown)["error"]["code"], "resource_missing");
  const Decision wrong_method = core.handle(make_request("GET", "/v1/customers"), Millis{2});
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(wrong_method.headers.find("Allow")->second, "POST");
  const Decision bad_form =
      core.handle(form_post("/v1/customers", "c2", "email=a&email[b]=2"), Millis{3});
  EXPECT_EQ(bad_form.status, 400);
  EXPECT_EQ(body_of(bad_form)["error"]["type"], "invalid_request_error");
  EXPECT_EQ(core.journal()[1].kind, RequestKind::other);
}

// A shape with its key in the body and a lookup by query parameter.
ApiShape token_shape() {
  return api_shape_from_json(json::parse(R"({
        "name": "orders",
        "creates": [{"method": "POST", "path": "/orders"}],
        "key": {"bodyField": "request.token"},
        "lookups": [{"method": "GET", "path": "/orders", "queryParameter": "token"}],
        "created": {"idPrefix": "ord_", "echo": ["sku"], "constants": {"kind": "order"}},
        "errors": {"codes": {"not_found": {"status": 404, "message": "no order with this token"}}},
        "replayHeader": "X-Replayed"
      })"),
                             "orders.json");
}

TEST(BodyFieldKey, TheKeyIsReadFromTheBodyAndLeftOutOfTheFingerprint) {
  ProviderConfig config;
  config.api = token_shape();
  ProviderCore core(config);
  const Decision created = core.handle(
      make_request("POST", "/orders", R"({"sku":"A","request":{"token":"t-1"}})"), Millis{0});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(body_of(created)["kind"], "order");
  EXPECT_EQ(body_of(created)["sku"], "A");
  EXPECT_EQ(core.journal()[0].key, "t-1");

  const Decision missing =
      core.handle(make_request("POST", "/orders", R"({"sku":"A"})"), Millis{1});
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(body_of(missing)["detail"],
            "send a \"request.token\" field naming the logical operation");
  EXPECT_EQ(core.journal()[1].outcome, Outcome::missing_key);

  const Decision replay = core.handle(
      make_request("POST", "/orders", R"({"request":{"token":"t-1"},"sku":"A"})"), Millis{2});
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.headers.find("X-Replayed")->second, "true");
}

TEST(QueryLookup, FindsTheJobByItsKeyAndRestatesAMiss) {
  ProviderConfig config;
  config.api = token_shape();
  ProviderCore core(config);
  core.handle(make_request("POST", "/orders", R"({"sku":"A","request":{"token":"t 1"}})"),
              Millis{0});
  HttpRequest lookup = make_request("GET", "/orders");
  lookup.query = "token=t+1";
  const Decision hit = core.handle(lookup, Millis{1});
  EXPECT_EQ(hit.status, 200);
  EXPECT_EQ(body_of(hit)["sku"], "A");
  EXPECT_EQ(core.journal()[1].kind, RequestKind::lookup);
  EXPECT_EQ(core.journal()[1].outcome, Outcome::lookup_hit);

  lookup.query = "token=other";
  const Decision miss = core.handle(lookup, Millis{2});
  EXPECT_EQ(miss.status, 404);
  EXPECT_EQ(body_of(miss)["detail"], "no order with this token");
  EXPECT_EQ(core.journal()[2].outcome, Outcome::lookup_miss);
}

TEST(DefaultShape, IsTheSeedsWire) {
  ProviderCore core(ProviderConfig{});
  HttpRequest request = make_request("POST", "/jobs", testing::kOrder42);
  request.headers.emplace("Idempotency-Key", "k");
  const Decision created = core.handle(request, Millis{0});
  EXPECT_EQ(created.status, 201);
  EXPECT_EQ(created.body, R"({"id":")" + body_of(created)["id"].get<std::string>() +
                              R"(","orderId":"order-42"})");
  EXPECT_EQ(core.handle(make_request("POST", "/jobs", "{}"), Millis{1}).body,
            R"({"detail":"send an Idempotency-Key header naming the logical operation",)"
            R"("error":"idempotency_key_required"})");
}

// An SDK may parse an error only under its API's media type (botocore reads AWS JSON errors
// as application/x-amz-json-1.1, a HAL client application/hal+json).
TEST(ApiShapeFile, ErrorsMaySetTheirContentType) {
  const ApiShape aws =
      api_shape_from_json(json::parse(R"({"errors": {"contentType": "application/x-amz-json-1.1",
                                 "template": {"__type": "{code}", "message": "{message}"}}})"),
                          "aws.json");
  const ErrorStyle errors{.shape = &aws, .format = error_format_of(aws)};
  EXPECT_EQ(errors.error(429, "rate_limited").content_type, "application/x-amz-json-1.1");
  const ApiShape hal = api_shape_from_json(
      json::parse(R"({"errors": {"contentType": "application/hal+json; charset=utf-8"}})"),
      "hal.json");
  EXPECT_EQ((ErrorStyle{.shape = &hal}.error(404, "not_found").content_type),
            "application/hal+json; charset=utf-8");
  // Without one, the format's own.
  EXPECT_EQ((ErrorStyle{.shape = &jobs_shape()}.error(404, "not_found").content_type),
            "application/json");
}

TEST(ApiShapeFile, AnErrorContentTypeThatIsNoMediaTypeIsRefused) {
  const std::string expected =
      "shape.json: $.errors.contentType: expected a media type, type/subtype with optional "
      ";parameters, such as \"application/x-amz-json-1.1\" or \"application/hal+json\"";
  for (const char* bad : {"json", "application/", "/json", "application json/x",
                          "application/json\r\nX-Injected: 1", "application/js on"}) {
    EXPECT_EQ(shape_load_error({{"errors", {{"contentType", bad}}}}), expected) << bad;
  }
  EXPECT_EQ(shape_load_error({{"errors", {{"contentType", 7}}}}),
            "shape.json: $.errors.contentType: expected a string");
}

}  // namespace
}  // namespace retryproof::provider
