// API shapes over a real socket: a shape file with its key in a body field and a lookup by
// query parameter, Stripe's form-encoded wire, and the plan in force read back.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

constexpr const char* kOrdersShape = R"({
  "name": "orders",
  "creates": [{"method": "POST", "path": "/api/orders"}],
  "key": {"bodyField": "clientToken"},
  "encodings": ["json"],
  "lookups": [{"method": "GET", "path": "/api/orders", "queryParameter": "clientToken"}],
  "created": {"idPrefix": "ord_", "echo": ["sku", "quantity"]},
  "errors": {"codes": {"idempotency_key_reused_with_different_payload": {"status": 409}}}
})";

ProviderConfig with_shape_file(const TempDir& dir) {
  ProviderConfig config;
  config.api = load_api_shape(dir.write("orders.json", kOrdersShape).string());
  return config;
}

TEST(ShapeFileOverHttp, CreatesByBodyTokenAndLooksUpByQueryParameter) {
  const TempDir dir("retryproof-shape-http");
  ProviderServer server(with_shape_file(dir), {.port = 0});
  httplib::Client client(server.base_url());

  const std::string order = R"({"clientToken":"tok/1","sku":"A-1","quantity":2})";
  const auto created = client.Post("/api/orders", order, "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const json job = json::parse(created->body);
  EXPECT_EQ(job["id"].get<std::string>().rfind("ord_", 0), 0u);
  EXPECT_EQ(job["quantity"], 2);

  const auto replayed = client.Post("/api/orders", order, "application/json");
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->status, 200);
  EXPECT_EQ(replayed->get_header_value("Idempotent-Replayed"), "true");

  const auto changed = client.Post(
      "/api/orders", R"({"clientToken":"tok/1","sku":"A-1","quantity":3})", "application/json");
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->status, 409);  // the shape's status for a changed payload
  EXPECT_EQ(json::parse(changed->body)["error"], "idempotency_key_reused_with_different_payload");

  const auto found = client.Get("/api/orders?clientToken=tok%2F1");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, 200);
  EXPECT_EQ(json::parse(found->body)["id"], job["id"]);
  const auto missed = client.Get("/api/orders?clientToken=nope");
  ASSERT_TRUE(missed);
  EXPECT_EQ(missed->status, 404);

  const auto wrong_method = client.Delete("/api/orders");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 405);
  // The seeds' routes are not this API's.
  EXPECT_EQ(client.Post("/jobs", {{"Idempotency-Key", "k"}}, "{}", "application/json")->status,
            404);

  const json journal = json::parse(client.Get("/_test/journal")->body);
  const auto& entries = journal["entries"];
  ASSERT_EQ(entries.size(), 7u);
  EXPECT_EQ(entries[0]["kind"], "create");
  EXPECT_EQ(entries[0]["key"], "tok/1");
  EXPECT_EQ(entries[3]["kind"], "lookup");
  EXPECT_EQ(entries[3]["key"], "tok/1");
  EXPECT_EQ(entries[5]["kind"], "other");
  EXPECT_EQ(server.core().job_count(), 1u);
}

TEST(ShapeFileOverHttp, ErrorsAreSentWithTheShapesContentType) {
  const TempDir dir("retryproof-shape-http");
  ProviderConfig config;
  config.api = load_api_shape(
      dir.write("aws.json", R"({"errors": {"contentType": "application/x-amz-json-1.1",
        "template": {"__type": "{code}", "message": "{message}"},
        "codes": {"not_found": {"status": 400, "code": "ResourceNotFoundException"}}}})")
          .string());
  ProviderServer server(config, {.port = 0});
  httplib::Client client(server.base_url());
  const auto missed = client.Get("/jobs/by-idempotency-key/nobody");
  ASSERT_TRUE(missed);
  EXPECT_EQ(missed->status, 400);
  EXPECT_EQ(missed->get_header_value("Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(json::parse(missed->body)["__type"], "ResourceNotFoundException");
  // A success keeps the API's JSON.
  const auto created =
      client.Post("/jobs", {{"Idempotency-Key", "k"}}, R"({"orderId":"o"})", "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);
  EXPECT_EQ(created->get_header_value("Content-Type"), "application/json");
}

// AWS's JSON protocol: every operation is POST /, named in X-Amz-Target.
TEST(ShapeFileOverHttp, RoutesByXAmzTargetTellACreateFromItsLookupAndFromAnythingElse) {
  const TempDir dir("retryproof-shape-http");
  ProviderConfig config;
  config.api = load_api_shape(dir.write("secrets.json", R"({
    "creates": [{"method": "POST", "path": "/",
                 "headers": {"X-Amz-Target": "secretsmanager.CreateSecret"}}],
    "key": {"bodyField": "ClientRequestToken"},
    "lookups": [{"method": "POST", "path": "/", "bodyField": "ClientRequestToken",
                 "headers": {"X-Amz-Target": "secretsmanager.DescribeSecret"}}]})")
                                  .string());
  ProviderServer server(config, {.port = 0});
  httplib::Client client(server.base_url());
  const auto call = [&](const std::string& target, const std::string& body) {
    return client.Post("/", {{"X-Amz-Target", "secretsmanager." + target}}, body,
                       "application/x-amz-json-1.1");
  };
  const std::string secret = R"({"Name":"db","ClientRequestToken":"t-1"})";
  const auto created = call("CreateSecret", secret);
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201) << created->body;
  const auto found = call("DescribeSecret", R"({"ClientRequestToken":"t-1"})");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, 200) << found->body;
  const auto other = call("PutSecretValue", secret);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);

  const json entries = json::parse(client.Get("/_test/journal")->body)["entries"];
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["kind"], "create");
  EXPECT_EQ(entries[1]["kind"], "lookup");
  EXPECT_EQ(entries[1]["outcome"], "lookup_hit");
  EXPECT_EQ(entries[2]["kind"], "other");
  EXPECT_EQ(server.core().job_count(), 1u);
}

TEST(StripeShapeOverHttp, AFormEncodedCreateWithStripesHeadersGetsAPaymentIntent) {
  ProviderServer server({.profile = Profile::stripe, .api = stripe_shape()}, {.port = 0});
  httplib::Client client(server.base_url());
  const httplib::Headers headers = {{"Idempotency-Key", "pi-key-1"},
                                    {"Authorization", "Bearer sk_test_123"},
                                    {"Stripe-Version", "2023-10-16"}};
  const std::string body = "amount=2000&currency=usd&metadata[order]=42";
  const auto created =
      client.Post("/v1/payment_intents", headers, body, "application/x-www-form-urlencoded");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  EXPECT_EQ(json::parse(created->body)["object"], "payment_intent");

  const auto changed = client.Post("/v1/payment_intents", headers, "amount=1&currency=usd",
                                   "application/x-www-form-urlencoded");
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->status, 400);
  EXPECT_EQ(json::parse(changed->body)["error"]["type"], "idempotency_error");
}

TEST(FaultsEndpoint, GetReturnsThePlanInForce) {
  ProviderServer server({}, {.port = 0});
  httplib::Client client(server.base_url());
  const auto empty = client.Get("/_test/faults");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 200);
  const json plan = {{"faults", {"commit-then-drop", "delay-before-commit:2s"}}};
  const auto installed = client.Post("/_test/faults", plan.dump(), "application/json");
  ASSERT_TRUE(installed);
  ASSERT_EQ(installed->status, 200);
  const auto in_force = client.Get("/_test/faults");
  ASSERT_TRUE(in_force);
  json shown = json::parse(in_force->body);
  EXPECT_EQ(shown["fired"].size(), 2u) << "each entry of the plan, with how often it fired";
  shown.erase("fired");
  EXPECT_EQ(shown, json::parse(installed->body));
  EXPECT_EQ(shown["faults"], plan["faults"]);
  const auto put = client.Put("/_test/faults", "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "GET, POST");
}

}  // namespace
}  // namespace retryproof::provider
