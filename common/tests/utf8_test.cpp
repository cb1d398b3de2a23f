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

}  // namespace
}  // namespace retryproof
