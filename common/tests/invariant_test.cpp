#include "common/invariant.hpp"

#include <gtest/gtest.h>

namespace retryproof {
namespace {

TEST(Invariant, ABrokenOneThrowsAnInternalErrorNamingItAndWhere) {
  EXPECT_NO_THROW(check_invariant(true, "never said"));
  try {
    check_invariant(1 + 1 == 3, "arithmetic holds");
    FAIL() << "no InternalError";
  } catch (const InternalError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("internal error: arithmetic holds (common/tests/invariant_test.cpp:"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("this is a bug in retryproof"), std::string::npos) << what;
  }
}

TEST(Invariant, TheFirstOneCaughtOnAServerThreadIsKeptForTheRunToStopOn) {
  EXPECT_NO_THROW(throw_if_internal_error());
  record_internal_error(InternalError("internal error: the first"));
  record_internal_error(InternalError("internal error: a second"));
  EXPECT_EQ(recorded_internal_error(), "internal error: the first");
  EXPECT_THROW(throw_if_internal_error(), InternalError);
}

}  // namespace
}  // namespace retryproof
