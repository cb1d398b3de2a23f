#include "common/utf8.hpp"

#include <gtest/gtest.h>

namespace retryproof {
namespace {

TEST(Utf8, LengthCountsCodePointsNotBytes) {
  EXPECT_EQ(utf8_length(""), 0u);
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("caf\xC3\xA9"), 4u);       // é is two bytes
  EXPECT_EQ(utf8_length("\xF0\x9F\x98\x80"), 1u);  // an emoji is four
  EXPECT_EQ(utf8_length("\xEF\xBF\xBD"), 1u);      // a real U+FFFD is valid text
}

TEST(Utf8, LengthRefusesWhatIsNotUtf8) {
  EXPECT_EQ(utf8_length("\xE9"), std::nullopt);            // Latin-1 é
  EXPECT_EQ(utf8_length("\xC0\xAF"), std::nullopt);        // overlong "/"
  EXPECT_EQ(utf8_length("\xED\xA0\x80"), std::nullopt);    // a surrogate
  EXPECT_EQ(utf8_length("ok\xF0\x9F\x98"), std::nullopt);  // cut short
}

TEST(Utf8, ValidUtf8ReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(valid_utf8("a\xE9z"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(EscapeText, KeepsValidUtf8AndEscapesEveryOtherByte) {
  EXPECT_EQ(escape_text("order-42 caf\xC3\xA9 \xF0\x9F\x98\x80"),
            "order-42 caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(escape_text("a\x1B[2Jb"), "a\\x1B[2Jb");                               // ESC
  EXPECT_EQ(escape_text(std::string_view("a\0b\b\x7F", 5)), "a\\x00b\\x08\\x7F");  // NUL, BS, DEL
  EXPECT_EQ(escape_text("a\r\nb\t"), "a\\x0D\\x0Ab\\x09");
  EXPECT_EQ(escape_text("\xC2\x9B"), "\\xC2\\x9B");  // a C1 control, CSI
  EXPECT_EQ(escape_text("say \"hi\" \\ ok"), "say \\\"hi\\\" \\\\ ok");
}

TEST(EscapeText, DistinctBytesThatAreNotUtf8StayDistinct) {
  // U+FFFD for both made these look the same; escaped, they do not.
  EXPECT_EQ(escape_text("key-\xE9"), "key-\\xE9");
  EXPECT_EQ(escape_text("key-\xFF"), "key-\\xFF");
  EXPECT_EQ(escape_text("\xC0\xAF"), "\\xC0\\xAF");               // overlong
  EXPECT_EQ(escape_text("ok\xF0\x9F\x98"), "ok\\xF0\\x9F\\x98");  // cut short
  // ... and an escaped byte is not the text that spells it.
  EXPECT_NE(escape_text("\xFF"), escape_text("\\xFF"));
}

TEST(EscapeText, UnescapeIsItsExactInverse) {
  for (const std::string& bytes :
       {std::string("plain"), std::string("a\xE9\\x\"\r\n"), std::string("\0\xFF", 2),
        std::string("\\xFF"), std::string("caf\xC3\xA9\xC2\x85")}) {
    EXPECT_EQ(unescape_text(escape_text(bytes)), bytes) << escape_text(bytes);
  }
  EXPECT_EQ(unescape_text("\\xZZ"), std::nullopt);
  EXPECT_EQ(unescape_text("\\x4"), std::nullopt);
  EXPECT_EQ(unescape_text("\\xff"), std::nullopt);  // lower case is not the form
  EXPECT_EQ(unescape_text("\\x41"), std::nullopt);  // "A" is written as itself
  EXPECT_EQ(unescape_text("a\"b"), std::nullopt);
}

TEST(EscapeText, QuotedTextCannotEndItsFieldEarly) {
  EXPECT_EQ(quoted_text("k\" NEW fault=none"), "\"k\\\" NEW fault=none\"");
  EXPECT_EQ(quoted_text("k\n[provider] key=x"), "\"k\\x0A[provider] key=x\"");
}

}  // namespace
}  // namespace retryproof
