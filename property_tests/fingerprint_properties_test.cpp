// The fingerprint written while a body is parsed (common/canonical_stream.hpp) against the
// one it replaces, canonical_json() of nlohmann's DOM: the same bytes for random JSON text
// (keys in any order and repeated, numbers in every spelling, \u escapes, raw UTF-8,
// control characters, white space), the same refusal with the same words for text broken
// at random, and the same fingerprint through each API shape's create for JSON and form
// bodies. RC_PARAMS="seed=S" replays a failure.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "common/canonical_stream.hpp"
#include "common/fingerprint.hpp"
#include "common/form_body.hpp"
#include "provider/api_shape.hpp"
#include "provider/json_body.hpp"

namespace retryproof {
namespace {

using nlohmann::json;

rc::Gen<std::string> white_space() {
  return rc::gen::element<std::string>("", "", "", " ", "\n", "\t", "\r\n  ");
}

// A number in one of its spellings: integers, their float spellings (1.0, 1e0, 10E-1),
// -0, the edges of int64 and uint64 and past them, fractions, exponents, 1e400 (refused).
rc::Gen<std::string> number_text() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(),
                   [](std::int64_t n) { return std::to_string(n); }),
      rc::gen::map(
          rc::gen::pair(rc::gen::inRange(-1000, 1000),
                        rc::gen::element<std::string>(".0", "e0", ".00E+0", "E1", "e-0", ".5",
                                                      ".25e1", "e2", ".1e-3")),
          [](const std::pair<int, std::string>& n) { return std::to_string(n.first) + n.second; }),
      rc::gen::element<std::string>(
          "0", "-0", "-0.0", "0e5", "1.0", "1e0", "10E-1", "120.0", "1.2e2", "9223372036854775807",
          "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
          "18446744073709551615", "18446744073709551616", "9007199254740993.0", "8999999999999999",
          "9e15", "8.9e15", "1e20", "1e-7", "0.1", "3.141592653589793", "1e308", "1e400", "-1e400",
          "5e-324", "1E+2"));
}

// A code point as raw UTF-8, or as a \u escape (a surrogate pair above the BMP).
std::string spell_code_point(std::uint32_t code, bool escaped) {
  char buffer[16];
  if (escaped) {
    if (code < 0x10000) {
      std::snprintf(buffer, sizeof buffer, "\\u%04X", code);
      return buffer;
    }
    const std::uint32_t v = code - 0x10000;
    std::snprintf(buffer, sizeof buffer, "\\u%04x\\u%04x", 0xd800 + (v >> 10),
                  0xdc00 + (v & 0x3ff));
    return buffer;
  }
  std::string utf8;
  if (code < 0x80) {
    utf8.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    utf8 += {static_cast<char>(0xc0 | (code >> 6)), static_cast<char>(0x80 | (code & 0x3f))};
  } else if (code < 0x10000) {
    utf8 += {static_cast<char>(0xe0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3f)),
             static_cast<char>(0x80 | (code & 0x3f))};
  } else {
    utf8 +=
        {static_cast<char>(0xf0 | (code >> 18)), static_cast<char>(0x80 | ((code >> 12) & 0x3f)),
         static_cast<char>(0x80 | ((code >> 6) & 0x3f)), static_cast<char>(0x80 | (code & 0x3f))};
  }
  return utf8;
}

rc::Gen<std::string> string_piece() {
  const auto code_point =
      rc::gen::suchThat(rc::gen::oneOf(rc::gen::inRange<std::uint32_t>(0, 0x80),
                                       rc::gen::inRange<std::uint32_t>(0x80, 0x800),
                                       rc::gen::inRange<std::uint32_t>(0x800, 0x10000),
                                       rc::gen::inRange<std::uint32_t>(0x10000, 0x110000)),
                        [](std::uint32_t code) { return code < 0xd800 || code > 0xdfff; });
  return rc::gen::oneOf(
      rc::gen::element<std::string>("a", "b", "A", "z", "0", " ", "~", "\x7f", "id", "orderId"),
      rc::gen::element<std::string>("\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
                                    "\\u0000", "\\u001f", "\\u0041", "\\u00e9"),
      rc::gen::map(rc::gen::pair(code_point, rc::gen::arbitrary<bool>()),
                   [](const std::pair<std::uint32_t, bool>& c) {
                     // A raw control character or quote is not JSON: escape those.
                     const bool must_escape = c.first < 0x20 || c.first == '"' || c.first == '\\';
                     return spell_code_point(c.first, c.second || must_escape);
                   }));
}

rc::Gen<std::string> string_text() {
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(string_piece()),
                      [](const std::vector<std::string>& pieces) {
                        std::string text = "\"";
                        for (const auto& piece : pieces)
                          text += piece;
                        return text + "\"";
                      });
}

// Keys from a small set most of the time, so that objects repeat keys and sort them.
rc::Gen<std::string> key_text() {
  return rc::gen::weightedOneOf<std::string>(
      {{3, rc::gen::element<std::string>("\"a\"", "\"b\"", "\"B\"", "\"\"", "\"a\\u0000\"",
                                         "\"\\u00e9\"", "\"\xc3\xa9\"", "\"ab\"", "\"\\n\"",
                                         "\"orderId\"", "\"amount\"")},
       {1, string_text()}});
}

rc::Gen<std::string> value_text(int depth);

// Up to five of them: containers nest four deep, and rapidcheck's sizes run to 100.
template <typename T>
rc::Gen<std::vector<T>> few(rc::Gen<T> item) {
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, 6), [item](std::size_t count) {
    return rc::gen::container<std::vector<T>>(count, item);
  });
}

rc::Gen<std::string> container_text(int depth) {
  const auto item = [depth] { return value_text(depth - 1); };
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::pair(few(item()), white_space()),
                   [](const std::pair<std::vector<std::string>, std::string>& items) {
                     std::string text = "[" + items.second;
                     for (std::size_t i = 0; i < items.first.size(); ++i)
                       text += (i ? "," : "") + items.first[i] + items.second;
                     return text + "]";
                   }),
      rc::gen::map(rc::gen::pair(few(rc::gen::pair(key_text(), item())), white_space()),
                   [](const auto& members) {
                     std::string text = "{" + members.second;
                     for (std::size_t i = 0; i < members.first.size(); ++i) {
                       text += (i ? "," : "") + members.second + members.first[i].first +
                               members.second + ":" + members.first[i].second;
                     }
                     return text + members.second + "}";
                   }));
}

rc::Gen<std::string> value_text(int depth) {
  const auto scalar = rc::gen::weightedOneOf<std::string>(
      {{1, rc::gen::element<std::string>("null", "true", "false")},
       {3, number_text()},
       {3, string_text()}});
  if (depth <= 0) return scalar;
  return rc::gen::weightedOneOf<std::string>(
      {{2, scalar}, {1, rc::gen::lazy([depth] { return container_text(depth); })}});
}

rc::Gen<std::string> object_text() {
  return rc::gen::map(rc::gen::pair(container_text(4), white_space()),
                      [](const std::pair<std::string, std::string>& text) {
                        return text.second + text.first + text.second;
                      });
}

// The text broken at a random place: a byte deleted, inserted or the rest cut off.
std::string broken(std::string text) {
  const auto at = *rc::gen::inRange<std::size_t>(0, text.size() + 1);
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      if (at < text.size()) text.erase(at, 1);
      break;
    case 1:
      text.insert(at, 1,
                  *rc::gen::element('{', '}', '[', ']', '"', ',', ':', '\\', 'x', '1', '-', '.',
                                    'e', ' ', '\x01', '\xff', '\xc3'));
      break;
    default:
      text.resize(at);
  }
  return text;
}

// What a function made of the text: "ok <canonical>" or "error <message>".
template <typename Read>
std::string outcome(Read read) {
  try {
    return "ok " + read();
  } catch (const json::exception& error) {
    return std::string("error ") + error.what();
  } catch (const std::invalid_argument& error) {
    return std::string("error ") + error.what();
  }
}

std::string streamed(const std::string& text, bool string_leaves = false) {
  return outcome([&] { return canonical_json_text(text, {.string_leaves = string_leaves}).text; });
}

std::string from_dom(const std::string& text, bool string_leaves = false) {
  return outcome([&] {
    const json value = json::parse(text);
    return canonical_json(string_leaves ? with_string_leaves(value) : value);
  });
}

RC_GTEST_PROP(StreamingFingerprint, EqualsCanonicalJsonOfTheDomForAnyJsonValue, ()) {
  const std::string text = *value_text(4);
  RC_ASSERT(streamed(text) == from_dom(text));
  RC_ASSERT(streamed(text, true) == from_dom(text, true));
}

RC_GTEST_PROP(StreamingFingerprint, RefusesBrokenTextAsTheDomParserDoes, ()) {
  const std::string text = broken(*object_text());
  RC_ASSERT(streamed(text) == from_dom(text));
}

RC_GTEST_PROP(StreamingFingerprint, AnObjectBodyIsReadAndRefusedAlike, ()) {
  const bool whole = *rc::gen::arbitrary<bool>();
  const std::string text = whole ? *object_text() : broken(*value_text(3));
  const bool string_leaves = *rc::gen::arbitrary<bool>();
  RC_ASSERT(outcome([&] { return provider::canonical_object_body(text, string_leaves); }) ==
            outcome([&] {
              const json body = provider::parse_object_body(text);
              return canonical_json(string_leaves ? with_string_leaves(body) : body);
            }));
}

// Nesting around the limit (128 levels), with and without a value at the bottom.
RC_GTEST_PROP(StreamingFingerprint, RefusesDeepNestingWhereTheDomParserDoes, ()) {
  const int levels = *rc::gen::inRange(120, 135);
  const std::string inner = *rc::gen::element<std::string>("", "1", "{}", "\"x\"", "{\"a\":1}");
  std::string text = "{\"a\":";
  for (int i = 1; i < levels; ++i)
    text += *rc::gen::element<std::string>("[", "{\"k\":");
  std::string closing;
  for (auto i = text.size(); i-- > 0;) {
    if (text[i] == '[') closing += ']';
    if (text[i] == '{') closing += '}';
  }
  text += inner + closing;
  RC_ASSERT(outcome([&] { return provider::canonical_object_body(text); }) ==
            outcome([&] { return canonical_json(provider::parse_object_body(text)); }));
}

// A form body: Stripe's bracket notation, names that clash, values percent-encoded.
rc::Gen<std::string> form_text() {
  const auto pair = rc::gen::apply(
      [](const std::string& name, const std::string& value) { return name + "=" + value; },
      rc::gen::element<std::string>("amount", "currency", "metadata[orderId]", "metadata[b]",
                                    "items[0][price]", "items[1][price]", "tags[]", "a", "a[b]",
                                    "key", "meta[key]", "x%5By%5D", "n+m"),
      rc::gen::element<std::string>("", "120", "120.0", "usd", "a+b", "%C3%A9", "%00", "true",
                                    "null", "%22q%22"));
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(pair),
                      [](const std::vector<std::string>& pairs) {
                        std::string text;
                        for (const auto& p : pairs)
                          text += (text.empty() ? "" : "&") + p;
                        return text;
                      });
}

// The shapes a create's body is fingerprinted under: JSON with the key in a header (the
// jobs shape, the streamed path), forms (stripe), both encodings (string leaves for JSON
// too), and a key in the body (taken out before the fingerprint).
std::vector<provider::ApiShape> shapes() {
  provider::ApiShape both = provider::jobs_shape();
  both.encodings = {provider::BodyEncoding::json, provider::BodyEncoding::form};
  provider::ApiShape key_in_body = provider::jobs_shape();
  key_in_body.key = {provider::KeyPlace::Where::body_field, "meta.key"};
  provider::ApiShape keyless = provider::jobs_shape();
  keyless.key = {provider::KeyPlace::Where::none, ""};
  return {provider::jobs_shape(), provider::stripe_shape(), both, key_in_body, keyless};
}

RC_GTEST_PROP(StreamingFingerprint, EveryShapeFingerprintsABodyAsBefore, ()) {
  static const std::vector<provider::ApiShape> all = shapes();
  const provider::ApiShape& shape = *rc::gen::elementOf(all);
  const bool form = *rc::gen::arbitrary<bool>();
  provider::HttpRequest request{"POST", "/jobs"};
  request.headers.emplace("Content-Type",
                          form ? "application/x-www-form-urlencoded" : "application/json");
  request.body = form ? *form_text() : *object_text();
  if (*rc::gen::arbitrary<bool>()) request.body = broken(request.body);
  RC_ASSERT(outcome([&] { return shape.fingerprint_of(request); }) == outcome([&] {
              return fingerprint(shape.canonical_payload(shape.decode_body(request)));
            }));
}

}  // namespace
}  // namespace retryproof
