// The events file, and the signature a receiver checks.
#include <gtest/gtest.h>

#include "deliver/events.hpp"
#include "deliver/signature.hpp"

namespace retryproof::deliver {
namespace {

using nlohmann::json;

TEST(Signature, IsHmacSha256InHexAsRfc4231Says) {
  // RFC 4231, test case 2.
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(signature_header("Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Events, AreSentAsWrittenCompactWithTheirIds) {
  const auto events = events_from_json(json::parse(R"({"events": [
      {"id": "evt_1", "type": "order.paid", "data": {"orderId": "o-1"}},
      {"id": "evt_2", "type": "order.paid"}]})"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].id, "evt_1");
  EXPECT_EQ(events[0].body, R"({"data":{"orderId":"o-1"},"id":"evt_1","type":"order.paid"})");
  EXPECT_EQ(events_from_json(json::parse(R"([{"id": "a"}])")).size(), 1u) << "a bare array too";
}

TEST(Events, AnErrorNamesTheEntryAndTheField) {
  const auto error_of = [](const char* text) {
    try {
      events_from_json(json::parse(text));
    } catch (const std::invalid_argument& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"events": [{"id": "a"}, {"id": 7}]})"),
            "events[1].id: expected a non-empty string, the event's id");
  EXPECT_EQ(error_of(R"([{"id": "a"}, "b"])"), "events[1]: expected an event object");
  EXPECT_EQ(error_of(R"([{"id": "a"}, {"id": "a"}])"),
            "events[1].id: \"a\" is also the id of events[0]; give each event its own id (the "
            "duplicates are deliver's to send)");
  EXPECT_EQ(error_of("[]"), "\"events\": expected a non-empty array of event objects");
  EXPECT_EQ(error_of(R"({"items": []})"), "expected {\"events\": [...]} or an array of events");
}

}  // namespace
}  // namespace retryproof::deliver
