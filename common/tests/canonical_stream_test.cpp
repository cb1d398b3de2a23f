// The canonical form written while parsing, on the JSON edge cases where a hand-written
// canonicaliser would part from nlohmann's DOM (property_tests/ tries random ones).
#include "common/canonical_stream.hpp"

#include <gtest/gtest.h>

#include "common/fingerprint.hpp"

namespace retryproof {
namespace {

using nlohmann::json;

std::string streamed(std::string_view text) {
  return canonical_json_text(text).text;
}

TEST(CanonicalStream, SortsKeysByTheirBytesAtEveryLevel) {
  EXPECT_EQ(streamed(R"({ "b":2, "a":{"d":[{"z":1,"y":2}],"c":null} })"),
            R"({"a":{"c":null,"d":[{"y":2,"z":1}]},"b":2})");
  // Bytes, not escaped text: "\n" (0x0a) sorts before "A" though its escape starts with \.
  EXPECT_EQ(streamed(R"({"A":1,"\n":2,"é":3,"":4})"), "{\"\":4,\"\\n\":2,\"A\":1,\"é\":3}");
}

TEST(CanonicalStream, KeepsTheLastOfRepeatedKeysAsTheDomDoes) {
  EXPECT_EQ(streamed(R"({"a":1,"b":2,"a":{"x":3}})"), R"({"a":{"x":3},"b":2})");
  EXPECT_EQ(streamed(R"({"a":1,"a":2,"a":3})"), canonical_json(json::parse(R"({"a":3})")));
}

TEST(CanonicalStream, WritesEveryNumberSpellingAsCanonicalJsonDoes) {
  EXPECT_EQ(streamed("[1,1.0,1e0,10E-1,-0,-0.0,120.0,1.2e2]"), "[1,1,1,1,0,0,120,120]");
  EXPECT_EQ(streamed("[0.5,1e20,9007199254740993.0,18446744073709551615,18446744073709551616]"),
            canonical_json(json::parse(
                "[0.5,1e20,9007199254740993.0,18446744073709551615,18446744073709551616]")));
}

TEST(CanonicalStream, UnescapesAndEscapesStringsAsNlohmannWritesThem) {
  EXPECT_EQ(streamed(R"(["\u00e9\/\u0041","\ud83d\ude00","\u0001\u001f\b\t","\u007f"])"),
            "[\"é/A\",\"😀\",\"\\u0001\\u001f\\b\\t\",\"\x7f\"]");
}

TEST(CanonicalStream, WritesScalarsAsFormStringsOnRequest) {
  EXPECT_EQ(
      canonical_json_text(R"({"n":120.0,"f":false,"z":null,"s":"x"})", {.string_leaves = true})
          .text,
      R"({"f":"false","n":"120","s":"x","z":""})");
}

TEST(CanonicalStream, RefusesWithTheParsersOwnException) {
  for (const std::string text :
       {"{\"a\":1", "{\"a\":1}x", "[1e400]", "{\"a\":\"\xff\"}", "", "01"}) {
    std::string streamed_error;
    std::string dom_error;
    try {
      canonical_json_text(text);
    } catch (const json::exception& error) {
      streamed_error = error.what();
    }
    try {
      const json parsed = json::parse(text);
      ADD_FAILURE() << "parsed " << parsed.dump();
    } catch (const json::exception& error) {
      dom_error = error.what();
    }
    EXPECT_FALSE(streamed_error.empty()) << text;
    EXPECT_EQ(streamed_error, dom_error) << text;
  }
}

TEST(CanonicalStream, SaysTheOutermostType) {
  EXPECT_EQ(canonical_json_text("{}").type, json::value_t::object);
  EXPECT_EQ(canonical_json_text(" [ ] ").type, json::value_t::array);
  EXPECT_EQ(canonical_json_text("2.5").type, json::value_t::number_float);
}

TEST(CanonicalStream, CountsDepthAsTheParserCallbackDoes) {
  // Two containers open around the 1: depth 2.
  EXPECT_EQ(canonical_json_text("[[1]]", {.max_depth = 2}).text, "[[1]]");
  EXPECT_THROW(canonical_json_text("[[1]]", {.max_depth = 1}), JsonTooDeep);
  EXPECT_EQ(canonical_json_text("[[]]", {.max_depth = 1}).text, "[[]]");  // nothing inside
}

}  // namespace
}  // namespace retryproof
