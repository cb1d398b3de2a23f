// The payload fingerprint: canonical JSON (sorted keys, no white space), then SHA-256.
#include "common/fingerprint.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace retryproof {
namespace {

using nlohmann::json;

TEST(CanonicalJson, SortsKeysAndDropsWhiteSpace) {
  EXPECT_EQ(canonical_json(json::parse(R"({ "b":2, "a":1 })")), R"({"a":1,"b":2})");
  EXPECT_EQ(canonical_json(json::parse("{\n  \"b\" : 2 ,\t\"a\" :1\r\n}")), R"({"a":1,"b":2})");
}

TEST(CanonicalJson, SortsNestedObjectsAndKeepsArrayOrder) {
  const json payload = json::parse(R"({
    "z": {"d": [3, {"y": 1, "x": 2}, 1], "c": null},
    "a": {"n": {"b": true, "a": "s p a c e"}}
  })");
  EXPECT_EQ(canonical_json(payload),
            R"({"a":{"n":{"a":"s p a c e","b":true}},"z":{"c":null,"d":[3,{"x":2,"y":1},1]}})");
}

TEST(CanonicalJson, EqualForSameValueWhateverTheSpelling) {
  const json first = json::parse(R"({"orderId":"order-42","paymentId":"pay-42","amount":120})");
  const json second =
      json::parse(R"( { "amount" : 120 , "paymentId":"pay-42",  "orderId" : "order-42" } )");
  EXPECT_EQ(canonical_json(first), canonical_json(second));
  EXPECT_EQ(fingerprint(first), fingerprint(second));
}

TEST(CanonicalJson, WritesIntegralNumbersAsIntegersAsJavaScriptDoes) {
  EXPECT_EQ(canonical_json(json::parse(R"({"amount":120.0,"b":[1.2e2,-0.0],"c":{"d":1e0}})")),
            R"({"amount":120,"b":[120,0],"c":{"d":1}})");
  EXPECT_EQ(canonical_json(json::parse(R"({"amount":120.5})")), R"({"amount":120.5})");
}

TEST(Fingerprint, SameAmountSpelledDifferentlyIsTheSamePayload) {
  EXPECT_EQ(fingerprint(json::parse(R"({"amount":120})")),
            fingerprint(json::parse(R"({"amount":120.0})")));
  EXPECT_NE(fingerprint(json::parse(R"({"amount":120})")),
            fingerprint(json::parse(R"({"amount":120.5})")));
}

TEST(Fingerprint, ChangesWhenAValueChanges) {
  EXPECT_NE(fingerprint(json::parse(R"({"a":1})")), fingerprint(json::parse(R"({"a":2})")));
  EXPECT_NE(fingerprint(json::parse(R"({"a":1})")), fingerprint(json::parse(R"({"a":"1"})")));
  EXPECT_NE(fingerprint(json::parse(R"({"a":1})")), fingerprint(json::parse(R"({"b":1})")));
  EXPECT_NE(fingerprint(json::parse(R"({"a":{"b":1}})")),
            fingerprint(json::parse(R"({"a":{"b":2}})")));
  EXPECT_NE(fingerprint(json::parse(R"({"a":[1,2]})")), fingerprint(json::parse(R"({"a":[2,1]})")));
  EXPECT_NE(fingerprint(json::parse(R"({"a":1})")), fingerprint(json::parse(R"({"a":1,"b":2})")));
}

TEST(Fingerprint, IsSha256OfTheCanonicalForm) {
  const json payload = json::parse(R"({ "b":2, "a":1 })");
  EXPECT_EQ(fingerprint(payload), sha256_hex(R"({"a":1,"b":2})"));
  EXPECT_EQ(fingerprint(payload),
            "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777");
  EXPECT_EQ(fingerprint(json::object()), sha256_hex("{}"));
}

TEST(Sha256Hex, MatchesKnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Hex, HashesEmbeddedNulBytes) {
  const std::string with_nul("a\0b", 3);
  EXPECT_NE(sha256_hex(with_nul), sha256_hex("a"));
  EXPECT_EQ(sha256_hex(with_nul).size(), 64U);
}

}  // namespace
}  // namespace retryproof
