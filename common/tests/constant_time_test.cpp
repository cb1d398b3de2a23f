#include "common/constant_time.hpp"

#include <gtest/gtest.h>

namespace retryproof {
namespace {

// What the control token check relies on: only the same bytes are equal, a prefix or a
// near miss is not, whatever the lengths.
TEST(EqualInConstantTime, OnlyTheSameBytesAreEqual) {
  EXPECT_TRUE(equal_in_constant_time("s3cret", "s3cret"));
  EXPECT_FALSE(equal_in_constant_time("s3cret", "s3creT"));
  EXPECT_FALSE(equal_in_constant_time("s3cret", "s3cre"));
  EXPECT_FALSE(equal_in_constant_time("s3cre", "s3cret"));
  EXPECT_FALSE(equal_in_constant_time("", "s3cret"));
  EXPECT_TRUE(equal_in_constant_time(std::string_view("a\0b", 3), std::string_view("a\0b", 3)));
  EXPECT_FALSE(equal_in_constant_time(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
}

}  // namespace
}  // namespace retryproof
