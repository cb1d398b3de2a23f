// Shapes of real APIs that the seeds' format could not describe: a created object in an
// envelope, an error body of the API's own form, an API without idempotency keys whose
// creates are tied together by a business field and looked up by it in a list. Each is read
// strictly, and the core speaks it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/api_shape.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::make_request;
using testing::shape_load_error;

// A payment API as Square's v2 wire has it: the key in the body, the payment in an
// envelope, errors as a list of {category, code, detail}.
ApiShape payments_shape() {
  return api_shape_from_json(json::parse(R"({
        "name": "payments",
        "creates": [{"method": "POST", "path": "/v2/payments"}],
        "key": {"bodyField": "idempotency_key"},
        "operationField": "reference_id",
        "lookups": [],
        "created": {"envelope": "payment", "idPrefix": "pay_", "echo": ["reference_id"],
                    "constants": {"status": "COMPLETED"}},
        "errors": {
          "template": {"errors": [{"category": "{category}", "code": "{code}",
                                   "detail": "{message}", "http": "{status}"}]},
          "values": {"category": "API_ERROR"},
          "codes": {"idempotency_key_reused_with_different_payload":
                      {"status": 400, "code": "IDEMPOTENCY_KEY_REUSED",
                       "values": {"category": "INVALID_REQUEST_ERROR"}}}}
      })"),
                             "payments.json");
}

// An API without keys: each create is a new object, found again by its metadata.orderId.
ApiShape keyless_shape() {
  return api_shape_from_json(json::parse(R"({
        "name": "stores",
        "creates": [{"method": "POST", "path": "/v1/stores"}],
        "key": "none",
        "operationField": "metadata.orderId",
        "lookups": [{"method": "GET", "path": "/v1/stores", "queryParameter": "order",
                     "list": "data"}],
        "created": {"idPrefix": "vs_", "echo": ["metadata"]}
      })"),
                             "stores.json");
}

HttpRequest payment(const std::string& key, int amount) {
  return make_request("POST", "/v2/payments",
                      json{{"idempotency_key", key},
                           {"reference_id", "order-42"},
                           {"amount_money", {{"amount", amount}, {"currency", "USD"}}}}
                          .dump());
}

TEST(Envelope, TheCreatedObjectIsWrappedAndReplayedAsItWas) {
  ProviderConfig config;
  config.api = payments_shape();
  ProviderCore core(config);
  const Decision created = core.handle(payment("k-1", 2000), Millis{0});
  ASSERT_EQ(created.status, 201) << created.body;
  const json object = body_of(created)["payment"];
  EXPECT_EQ(object["status"], "COMPLETED");
  EXPECT_EQ(object["reference_id"], "order-42");
  EXPECT_EQ(config.api.created_id(body_of(created)), object["id"].get<std::string>());
  EXPECT_EQ(core.journal()[0].operation, "order-42");  // the shape's operation field

  const Decision replay = core.handle(payment("k-1", 2000), Millis{1});
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.body, created.body);
  EXPECT_EQ(core.jobs_json()["jobs"][0]["id"], object["id"]);  // listed by id all the same
}

TEST(ErrorTemplate, PlacesTheCodeMessageAndStatusWhereTheApiPutsThem) {
  ProviderConfig config;
  config.api = payments_shape();
  ProviderCore core(config);
  core.handle(payment("k-1", 2000), Millis{0});
  const Decision changed = core.handle(payment("k-1", 999), Millis{1});
  EXPECT_EQ(changed.status, 400);
  const json error = body_of(changed)["errors"][0];
  EXPECT_EQ(error["category"], "INVALID_REQUEST_ERROR");  // the code's own value wins
  EXPECT_EQ(error["code"], "IDEMPOTENCY_KEY_REUSED");
  EXPECT_EQ(error["http"], 400);  // "{status}" alone is a number
  EXPECT_NE(error["detail"].get<std::string>().find("different payload"), std::string::npos);

  const Decision missing = core.handle(
      make_request("POST", "/v2/payments", R"({"reference_id":"order-42"})"), Millis{2});
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(body_of(missing)["errors"][0]["category"], "API_ERROR");  // the template's value
  EXPECT_EQ(body_of(missing)["errors"][0]["code"], "idempotency_key_required");
}

TEST(Keyless, EveryCreateIsANewObjectRecordedByItsBusinessField) {
  ProviderConfig config;
  config.api = keyless_shape();
  ProviderCore core(config);
  const std::string body = R"({"name":"n","metadata":{"orderId":"order-42"}})";
  const Decision first = core.handle(make_request("POST", "/v1/stores", body), Millis{0});
  const Decision second = core.handle(make_request("POST", "/v1/stores", body), Millis{1});
  ASSERT_EQ(first.status, 201) << first.body;
  ASSERT_EQ(second.status, 201) << second.body;
  EXPECT_NE(body_of(first)["id"], body_of(second)["id"]);  // no key: two effects
  const auto journal = core.journal();
  EXPECT_EQ(journal[0].key, std::nullopt);
  EXPECT_EQ(journal[0].operation, "order-42");
  EXPECT_EQ(journal[0].fingerprint, journal[1].fingerprint);
  EXPECT_EQ(core.job_count(), 2u);
}

TEST(Keyless, AListLookupFindsEveryJobOfTheOperationAndAnEmptyListForNone) {
  ProviderConfig config;
  config.api = keyless_shape();
  ProviderCore core(config);
  const std::string body = R"({"metadata":{"orderId":"order-42"}})";
  core.handle(make_request("POST", "/v1/stores", body), Millis{0});
  core.handle(make_request("POST", "/v1/stores", body), Millis{1});
  core.handle(make_request("POST", "/v1/stores", R"({"metadata":{"orderId":"o-7"}})"), Millis{2});

  HttpRequest lookup = make_request("GET", "/v1/stores");
  lookup.query = "order=order-42";
  const Decision found = core.handle(lookup, Millis{3});
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(body_of(found)["data"].size(), 2u) << found.body;
  const JournalEntry looked = core.journal()[3];
  EXPECT_EQ(looked.kind, RequestKind::lookup);
  EXPECT_EQ(looked.outcome, Outcome::lookup_hit);
  EXPECT_EQ(looked.operation, "order-42");  // asked by the business field, not a key
  EXPECT_EQ(looked.key, std::nullopt);

  lookup.query = "order=order-9";
  const Decision none = core.handle(lookup, Millis{4});
  EXPECT_EQ(none.status, 200);
  EXPECT_EQ(none.body, R"({"data":[]})");
  EXPECT_EQ(core.journal()[4].outcome, Outcome::lookup_miss);
}

// A search reads the objects, which outlive the idempotency index's keys: a rerun hours
// later still finds the job it must not make twice.
TEST(Keyless, AListLookupFindsAJobWhoseKeyTheProviderForgot) {
  ProviderConfig config;
  config.api = keyless_shape();
  config.key_ttl = Millis{3600 * 1000};
  ProviderCore core(config);
  core.handle(make_request("POST", "/v1/stores", R"({"metadata":{"orderId":"order-42"}})"),
              Millis{0});
  HttpRequest lookup = make_request("GET", "/v1/stores");
  lookup.query = "order=order-42";
  const Decision found = core.handle(lookup, Millis{2 * 3600 * 1000});
  EXPECT_EQ(body_of(found)["data"].size(), 1u) << found.body;
}

TEST(ShapeFile, NewFieldsAreReadStrictly) {
  EXPECT_EQ(shape_load_error({{"key", "none"}}).substr(0, 72),
            "shape.json: $: an API without a key (\"key\": \"none\") names the body field");
  EXPECT_EQ(shape_load_error({{"created", {{"envelope", ""}}}}),
            "shape.json: $.created.envelope: expected a non-empty string");
  EXPECT_EQ(shape_load_error({{"created", {{"idField", 7}}}}),
            "shape.json: $.created.idField: expected a string");
  EXPECT_EQ(shape_load_error({{"created", {{"envelope", "data.payment"}}}}),
            "shape.json: $.created.envelope: a field name, without dots");
  EXPECT_EQ(shape_load_error({{"errors",
                               {{"template", {{"errors", {{{"kind", "{categry}"}}}}}},
                                {"values", {{"category", "API_ERROR"}}}}}}),
            "shape.json: $.errors.template.errors[0].kind: {categry} is not a part of an error: "
            "expected {status}, {code}, {message} or the name of one of $.errors.values");
  EXPECT_EQ(shape_load_error({{"errors", {{"template", {{"e", "{code}"}}}, {"format", "plain"}}}}),
            "shape.json: $.errors: an error body has a \"format\" or a \"template\", not both");
  EXPECT_EQ(shape_load_error({{"errors", {{"template", "{code}"}}}}),
            "shape.json: $.errors.template: expected a JSON object or array: the error body");
  EXPECT_EQ(shape_load_error({{"errors", {{"values", {{"category", "x"}}}}}}),
            "shape.json: $.errors.values: values fill a \"template\"; this shape has none");
  EXPECT_EQ(shape_load_error(
                {{"errors", {{"template", {{"e", "{code}"}}}, {"values", {{"code", "x"}}}}}}),
            "shape.json: $.errors.values.code: \"code\" is filled in by the provider; name "
            "another value");
  EXPECT_EQ(
      shape_load_error({{"lookups", {{{"method", "GET"}, {"path", "/x/{key}"}, {"list", 3}}}}}),
      "shape.json: $.lookups[0].list: expected a string");
  EXPECT_EQ(shape_load_error({{"operationField", ""}}),
            "shape.json: $.operationField: expected a non-empty string");
  EXPECT_EQ(shape_load_error({{"opertionField", "a"}}).substr(0, 44),
            "shape.json: $: unknown field \"opertionField\"");
}

TEST(Echo, ADottedPathIsEchoedWhereItStood) {
  const ApiShape shape = api_shape_from_json(
      {{"created", {{"echo", {"metadata.orderId", "amount"}}, {"constants", {{"amount", "x"}}}}}},
      "echo.json");
  const json object = shape.created_object(
      "job_1", {{"metadata", {{"orderId", "o-1"}, {"other", 1}}}, {"amount", 5}});
  EXPECT_EQ(object["metadata"], json({{"orderId", "o-1"}}));
  EXPECT_EQ(object["amount"], 5);  // the request's, over the constant
  const ApiShape blocked = api_shape_from_json(
      {{"created", {{"echo", {"metadata.orderId"}}, {"constants", {{"metadata", "fixed"}}}}}},
      "blocked.json");
  EXPECT_EQ(blocked.created_object("job_1", {{"metadata", {{"orderId", "o-1"}}}})["metadata"],
            "fixed");  // never a throw on a create
}

// The official SDKs' shapes in examples/ are built in, by their names, and are the files.
TEST(BuiltInShapes, TheSdkShapesAreBuiltInByName) {
  EXPECT_EQ(api_shape_names().substr(0, 14), "jobs, stripe, ");
  for (const std::string name :
       {"square-payments", "openai-conversations", "modern-treasury-payment-orders"}) {
    EXPECT_NE(api_shape_names().find(name), std::string::npos) << api_shape_names();
    EXPECT_EQ(load_api_shape(name).name, name);
  }
  EXPECT_FALSE(load_api_shape("openai-conversations").key.exists());
  EXPECT_EQ(load_api_shape("square-payments").created.envelope, "payment");
}

TEST(ShapeFile, TheOperationFieldIsReadAsAJsonPointer) {
  EXPECT_EQ(keyless_shape().operation_pointer(), "/metadata/orderId");
  EXPECT_EQ(payments_shape().operation_pointer(), "/reference_id");
  EXPECT_EQ(jobs_shape().operation_pointer(), std::nullopt);
}

}  // namespace
}  // namespace retryproof::provider
