// The operation field: a provider started with --operation-field records, in each create's
// journal entry, the value its payload carries there — the business identity a service's
// traffic is judged by — and never the payload. And the /_test/ endpoints that layers above
// the core add (GET /_test/verdicts).
#include <gtest/gtest.h>

#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider {
namespace {

using namespace provider::testing;
using nlohmann::json;

ProviderConfig recording(const std::string& field) {
  ProviderConfig config = config_with(1);
  config.operation_field = field;
  return config;
}

TEST(OperationField, EachCreateRecordsItsPayloadsValueAndNothingElseOfThePayload) {
  ProviderCore core(recording("orderId"));
  post(core, "key-A", kOrder42);
  post(core, "key-A", kOrder42);                                  // a replay
  post(core, "key-A", R"({"orderId":"order-42","amount":999})");  // refused: another payload
  post(core, "key-B", R"({"orderId":7})");                        // not a string
  post(core, "key-C", R"({"orderId":{"shop":"s1","n":2}})");      // an object, compact
  post(core, "key-D", R"({"amount":1})");                         // no orderId at all
  lookup(core, "key-A");

  const std::vector<JournalEntry> journal = core.journal();
  ASSERT_EQ(journal.size(), 7u);
  EXPECT_EQ(journal[0].operation, "order-42");
  EXPECT_EQ(journal[1].operation, "order-42");
  EXPECT_EQ(journal[2].operation, "order-42");
  EXPECT_EQ(journal[3].operation, "7");
  EXPECT_EQ(journal[4].operation, R"({"n":2,"shop":"s1"})");
  EXPECT_EQ(journal[5].operation, std::nullopt);
  EXPECT_EQ(journal[6].operation, std::nullopt);  // a lookup has no payload

  const json entry = journal_entries(core)[0];
  EXPECT_EQ(entry["operation"], "order-42");
  EXPECT_EQ(entry.dump().find("pay-42"), std::string::npos) << "the payload is not recorded";
  EXPECT_EQ(journal_from_json(journal_of(core)), journal);
}

TEST(OperationField, AJsonPointerReachesIntoNestedObjects) {
  ProviderCore core(recording("/metadata/orderId"));
  post(core, "key-A", R"({"metadata":{"orderId":"order-9"},"amount":1})");
  post(core, "key-B", R"({"metadata":["not", "an object"]})");
  post(core, "key-C", R"({"orderId":"order-9"})");
  const std::vector<JournalEntry> journal = core.journal();
  EXPECT_EQ(journal[0].operation, "order-9");
  EXPECT_EQ(journal[1].operation, std::nullopt);
  EXPECT_EQ(journal[2].operation, std::nullopt);
}

TEST(OperationField, WithoutOneNothingIsRecordedAndOldJournalsStillRead) {
  ProviderCore core(config_with(1));
  post(core, "key-A", kOrder42);
  EXPECT_EQ(core.journal()[0].operation, std::nullopt);
  EXPECT_TRUE(journal_entries(core)[0]["operation"].is_null());

  json saved = journal_of(core);
  saved["entries"][0].erase("operation");  // as journals were saved before the field
  EXPECT_EQ(journal_from_json(saved), core.journal());
  saved["entries"][0]["operation"] = 42;
  try {
    journal_from_json(saved);
    FAIL() << "a number is not an operation";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), R"(entries[0]: "operation": expected a string or null)");
  }
}

// ---- endpoints added from above -----------------------------------------------------

ProviderConfig with_echo_endpoint() {
  ProviderConfig config = recording("orderId");
  config.control_endpoints.push_back(
      {.path = "/_test/echo",
       .error_code = "invalid_echo",
       .answer = [](const std::string& query, const std::vector<JournalEntry>& journal,
                    const ControlContext& seen) -> ControlAnswer {
         if (query == "bad") throw std::invalid_argument("bad: say what is wrong");
         if (query == "text") return {"plain words", "text/plain"};
         return {json{{"query", query},
                      {"entries", journal.size()},
                      {"field", seen.operation_field.value_or("")}}
                     .dump()};
       }});
  return config;
}

TEST(ControlEndpoints, AnEndpointFromAboveAnswersWithTheJournalAndTheQuery) {
  ProviderCore core(with_echo_endpoint());
  post(core, "key-A", kOrder42);
  HttpRequest request = make_request("GET", "/_test/echo");
  request.query = "a=1&b=2";
  const Decision answer = core.handle(request, Millis{0});
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(body_of(answer), json({{"query", "a=1&b=2"}, {"entries", 1}, {"field", "orderId"}}));
  EXPECT_EQ(answer.content_type, "application/json");
  EXPECT_EQ(core.journal_size(), 1u) << "a control call is not journaled";

  request.query = "text";
  const Decision text = core.handle(request, Millis{0});
  EXPECT_EQ(text.body, "plain words");
  EXPECT_EQ(text.content_type, "text/plain") << "an endpoint says what it answers";
}

TEST(ControlEndpoints, ABadQueryIsA400WithTheEndpointsCodeAndOnlyGetIsAllowed) {
  ProviderCore core(with_echo_endpoint());
  HttpRequest request = make_request("GET", "/_test/echo");
  request.query = "bad";
  const Decision refused = core.handle(request, Millis{0});
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(body_of(refused)["error"], "invalid_echo");
  EXPECT_EQ(body_of(refused)["detail"], "bad: say what is wrong");

  const Decision posted = call(core, "POST", "/_test/echo", "{}");
  EXPECT_EQ(posted.status, 405);
  EXPECT_EQ(header_of(posted, "Allow"), "GET");
  EXPECT_EQ(call(core, "GET", "/_test/other").status, 404);
}

TEST(ControlEndpoints, TheControlTokenGuardsThemToo) {
  ProviderConfig config = with_echo_endpoint();
  config.control_token = "T";
  ProviderCore core(config);
  EXPECT_EQ(control(core, "GET", "/_test/echo").status, 401);
  EXPECT_EQ(control(core, "GET", "/_test/echo", {}, "Bearer T").status, 200);
}

}  // namespace
}  // namespace retryproof::provider
