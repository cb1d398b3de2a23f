// Routes that share a method and a path, told apart by a header's value (AWS's JSON
// protocol: every operation is POST /, named in X-Amz-Target) or a body field's (JSON-RPC's
// "method", GraphQL's "operationName"); lookups alike, with the value looked up in the
// body. An operation no route names is `other`, never a create.
#include <gtest/gtest.h>

#include "core_test_support.hpp"
#include "provider/api_shape.hpp"

namespace retryproof::provider {
namespace {

using namespace testing;
using nlohmann::json;

const json kSecretsManager = json::parse(R"({
  "name": "secretsmanager",
  "creates": [{"method": "POST", "path": "/",
               "headers": {"X-Amz-Target": "secretsmanager.CreateSecret"}}],
  "key": {"bodyField": "ClientRequestToken"},
  "lookups": [{"method": "POST", "path": "/",
               "headers": {"X-Amz-Target": "secretsmanager.DescribeSecret"},
               "bodyField": "ClientRequestToken"}],
  "created": {"idPrefix": "arn_", "idField": "ARN", "echo": ["Name"]},
  "errors": {"contentType": "application/x-amz-json-1.1",
             "template": {"__type": "{code}", "message": "{message}"},
             "codes": {"not_found": {"status": 400, "code": "ResourceNotFoundException"}}}
})");

HttpRequest aws_call(const std::string& target, const json& body) {
  HttpRequest request = make_request("POST", "/", body.dump());
  request.headers.emplace("Content-Type", "application/x-amz-json-1.1");
  if (!target.empty()) request.headers.emplace("X-Amz-Target", "secretsmanager." + target);
  return request;
}

TEST(RoutesByHeader, AnAwsJsonProtocolCreateAndItsLookupShareOnePath) {
  const ApiShape shape = api_shape_from_json(kSecretsManager, "secretsmanager.json");
  const json secret = {{"Name", "db-password"}, {"ClientRequestToken", "tok-1"}};
  EXPECT_EQ(shape.match(aws_call("CreateSecret", secret)).kind, RequestKind::create);
  const RouteMatch lookup =
      shape.match(aws_call("DescribeSecret", {{"ClientRequestToken", "tok-1"}}));
  EXPECT_EQ(lookup.kind, RequestKind::lookup);
  EXPECT_EQ(lookup.key, "tok-1");
  // Another operation on the path, or none named, is no create.
  EXPECT_EQ(shape.match(aws_call("DeleteSecret", secret)).kind, RequestKind::other);
  EXPECT_EQ(shape.match(aws_call("", secret)).kind, RequestKind::other);
  EXPECT_EQ(shape.match(aws_call("DeleteSecret", secret)).allowed, "");  // a 404, not a 405

  ProviderConfig config = config_with(3);
  config.api = shape;
  ProviderCore core(config);
  const Decision created = core.handle(aws_call("CreateSecret", secret), Millis{0});
  EXPECT_EQ(created.status, 201);
  const Decision replayed = core.handle(aws_call("CreateSecret", secret), Millis{10});
  EXPECT_EQ(replayed.status, 200);
  const Decision deleted = core.handle(aws_call("DeleteSecret", secret), Millis{20});
  EXPECT_EQ(deleted.status, 400);  // not_found, as the shape sends it
  EXPECT_EQ(body_of(deleted)["__type"], "ResourceNotFoundException");
  const Decision found =
      core.handle(aws_call("DescribeSecret", {{"ClientRequestToken", "tok-1"}}), Millis{30});
  EXPECT_EQ(found.status, 200);
  EXPECT_EQ(body_of(found)["ARN"], body_of(created)["ARN"]);
  const Decision missed =
      core.handle(aws_call("DescribeSecret", {{"ClientRequestToken", "tok-9"}}), Millis{40});
  EXPECT_EQ(missed.status, 400);
  EXPECT_EQ(missed.content_type, "application/x-amz-json-1.1");

  const auto journal = core.journal();
  ASSERT_EQ(journal.size(), 5u);
  EXPECT_EQ(journal[0].kind, RequestKind::create);
  EXPECT_EQ(journal[1].outcome, Outcome::replay);
  EXPECT_EQ(journal[2].kind, RequestKind::other);
  EXPECT_EQ(journal[3].kind, RequestKind::lookup);
  EXPECT_EQ(journal[3].key, "tok-1");
  EXPECT_EQ(journal[3].outcome, Outcome::lookup_hit);
  EXPECT_EQ(journal[4].outcome, Outcome::lookup_miss);
  EXPECT_EQ(journal[4].code, "not_found");
  EXPECT_EQ(core.job_count(), 1u);
}

TEST(RoutesByBody, AJsonRpcApiNamesItsOperationsInABodyField) {
  const ApiShape shape = api_shape_from_json(json::parse(R"({
    "creates": [{"method": "POST", "path": "/rpc", "bodyFields": {"method": "payments.create"}}],
    "key": "none", "operationField": "params.reference",
    "lookups": [{"method": "POST", "path": "/rpc", "bodyFields": {"method": "payments.find"},
                 "bodyField": "params.reference", "list": "result"}]
  })"),
                                             "rpc.json");
  const auto call = [](const json& body) { return make_request("POST", "/rpc", body.dump()); };
  EXPECT_EQ(
      shape.match(call({{"method", "payments.create"}, {"params", {{"reference", "o-1"}}}})).kind,
      RequestKind::create);
  const RouteMatch found =
      shape.match(call({{"method", "payments.find"}, {"params", {{"reference", "o-1"}}}}));
  EXPECT_EQ(found.kind, RequestKind::lookup);
  EXPECT_EQ(found.key, "o-1");
  EXPECT_EQ(shape.match(call({{"method", "payments.refund"}})).kind, RequestKind::other);
  EXPECT_EQ(shape.match(make_request("POST", "/rpc", "not json")).kind, RequestKind::other);
  // A number compares as its text.
  const ApiShape versioned = api_shape_from_json(
      json::parse(R"({"creates": [{"method": "POST", "path": "/", "bodyFields": {"v": "2"}}]})"),
      "v.json");
  EXPECT_EQ(versioned.match(make_request("POST", "/", R"({"v":2})")).kind, RequestKind::create);
  EXPECT_EQ(versioned.match(make_request("POST", "/", R"({"v":1})")).kind, RequestKind::other);
}

TEST(RoutesByHeader, ARouteDescribesWhatItRequires) {
  const ApiShape shape = api_shape_from_json(kSecretsManager, "secretsmanager.json");
  EXPECT_EQ(shape.creates[0].describe(), "POST / with X-Amz-Target: secretsmanager.CreateSecret");
}

TEST(RoutesByHeader, AShapeFileThatCannotTellItsOperationsApartIsRefused) {
  // A create that names nothing on a path whose lookup names its operation would take every
  // unknown operation for a create.
  EXPECT_EQ(shape_load_error(json::parse(R"({
      "creates": [{"method": "POST", "path": "/"}],
      "lookups": [{"method": "POST", "path": "/", "headers": {"X-Amz-Target": "s.Describe"},
                   "bodyField": "Id"}]})")),
            "shape.json: $.creates[0]: POST / is shared with $.lookups[0] (POST / with "
            "X-Amz-Target: s.Describe): each route on a shared path names its operation in "
            "\"headers\" or \"bodyFields\", so that an unknown operation is never taken for it");
  EXPECT_EQ(shape_load_error(json::parse(
                R"({"creates": [{"method": "POST", "path": "/", "headers": {"X Target": "a"}}]})")),
            "shape.json: $.creates[0].headers.X Target: not a header name (letters, digits and "
            "-_.!#$%&'*+^`|~)");
  EXPECT_EQ(shape_load_error(
                json::parse(R"({"creates": [{"method": "POST", "path": "/", "headers": {}}]})")),
            "shape.json: $.creates[0].headers: expected at least one name and the value it must "
            "have");
  EXPECT_EQ(shape_load_error(json::parse(
                R"({"creates": [{"method": "POST", "path": "/", "bodyFields": {"m": 1}}]})")),
            "shape.json: $.creates[0].bodyFields.m: expected a string");
  EXPECT_EQ(shape_load_error(json::parse(R"({"lookups": [{"method": "POST", "path": "/",
      "queryParameter": "q", "bodyField": "Id"}]})")),
            "shape.json: $.lookups[0]: a lookup reads its value from a \"queryParameter\" or a "
            "\"bodyField\", not both");
}

}  // namespace
}  // namespace retryproof::provider
