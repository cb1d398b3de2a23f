#include "common/form_body.hpp"

#include <gtest/gtest.h>

#include "common/fingerprint.hpp"

namespace retryproof {
namespace {

using nlohmann::json;

std::string parse_form_body_error(std::string_view body) {
  try {
    parse_form_body(body);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted " << body;
  return {};
}

TEST(FormBody, ReadsBracketNotationAsStripesSdkWritesIt) {
  EXPECT_EQ(parse_form_body("amount=120&currency=usd&metadata[orderId]=order-42&"
                            "items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2&"
                            "payment_method_types[0]=card&nothing=&flag=true"),
            json::parse(R"({"amount":"120","currency":"usd","metadata":{"orderId":"order-42"},
                            "items":[{"price":"p1","quantity":"2"},{"price":"p2"}],
                            "payment_method_types":["card"],"nothing":"","flag":"true"})"));
}

TEST(FormBody, DecodesPercentEscapesAndPlusInNamesAndValues) {
  EXPECT_EQ(parse_form_body("note=a%26b%3Dc%20d%2F%C3%A9&metadata[order%20id]=1&q=a+b"),
            json::parse(R"({"note":"a&b=c d/é","metadata":{"order id":"1"},"q":"a b"})"));
  EXPECT_EQ(parse_form_body("tags[]=x&tags[]=y"), json::parse(R"({"tags":["x","y"]})"));
  EXPECT_EQ(parse_form_body(""), json::object());
}

TEST(FormBody, RefusesWhatHasNoSingleMeaningNamingThePair) {
  EXPECT_EQ(parse_form_body_error("a=1&a[b]=2"),
            "\"a[b]=2\": a is given both as a value and as a list or object");
  EXPECT_EQ(parse_form_body_error("a=1&a=2"),
            "\"a=2\": a is given both as a value and as a list or object");
  EXPECT_EQ(parse_form_body_error("items[1]=x"),
            "\"items[1]=x\": list indices run from 0 without gaps, up to 1000");
  EXPECT_EQ(parse_form_body_error("a[b=1"), "\"a[b=1\": brackets must pair up, as in a[b][0]");
  EXPECT_EQ(parse_form_body_error("[x]=1"), "\"[x]=1\": a field has a name");
}

TEST(FormBody, AFormBodyAndItsJsonFingerprintAlikeWithStringLeaves) {
  const json sent_as_json = json::parse(
      R"({"amount":120,"currency":"usd","metadata":{"orderId":"order-42"},"live":false})");
  const json sent_as_form =
      parse_form_body("currency=usd&live=false&metadata[orderId]=order-42&amount=120");
  EXPECT_EQ(fingerprint(with_string_leaves(sent_as_json)),
            fingerprint(with_string_leaves(sent_as_form)));
  EXPECT_EQ(with_string_leaves(json::parse(R"({"a":120.0,"b":null})")),
            json::parse(R"({"a":"120","b":""})"));
  EXPECT_NE(fingerprint(with_string_leaves(json::parse(R"({"amount":121})"))),
            fingerprint(with_string_leaves(sent_as_json)));
}

}  // namespace
}  // namespace retryproof
