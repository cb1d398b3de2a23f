// Durations as plans and control calls write them: parse_duration and format_duration.
#include "common/duration.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/millis.hpp"

namespace retryproof {
namespace {

// The message of the std::invalid_argument that parse_duration throws, or a failure.
std::string parse_duration_error(const std::string& text) {
  try {
    const Millis parsed = parse_duration(text);
    ADD_FAILURE() << "parse_duration accepted \"" << text << "\" as " << parsed.count() << "ms";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return {};
}

TEST(ParseDuration, ReadsEveryUnit) {
  EXPECT_EQ(parse_duration("250ms"), Millis{250});
  EXPECT_EQ(parse_duration("3s"), Millis{3'000});
  EXPECT_EQ(parse_duration("2m"), Millis{120'000});
  EXPECT_EQ(parse_duration("25h"), Millis{90'000'000});
}

TEST(ParseDuration, ReadsZeroAndLeadingZeros) {
  EXPECT_EQ(parse_duration("0ms"), Millis{0});
  EXPECT_EQ(parse_duration("0h"), Millis{0});
  EXPECT_EQ(parse_duration("05s"), Millis{5'000});
  EXPECT_EQ(parse_duration("1ms"), Millis{1});
}

TEST(ParseDuration, AcceptsUpToAYear) {
  EXPECT_EQ(parse_duration("8784h"), Millis{8784LL * 3'600'000});
  EXPECT_EQ(parse_duration("31622400000ms"), Millis{31'622'400'000LL});
  parse_duration_error("8785h");
  parse_duration_error("31622400001ms");
}

TEST(ParseDuration, RefusesMalformedText) {
  for (const std::string text : {"", "3", "s", "ms", "-1s", "1.5s", "3 s", " 3s", "3s ", "3d", "3S",
                                 "3sec", "+3s", "3ms5", "s3", "1e3ms", "0x10s"}) {
    SCOPED_TRACE(text);
    const std::string message = parse_duration_error(text);
    EXPECT_NE(message.find("\"" + text + "\""), std::string::npos) << message;
  }
}

TEST(ParseDuration, RefusesOverflow) {
  for (const std::string text :
       {"99999999999h", "9223372036854775807ms", "99999999999999999999ms", "153722867280912931m"}) {
    SCOPED_TRACE(text);
    const std::string message = parse_duration_error(text);
    EXPECT_NE(message.find("\"" + text + "\""), std::string::npos) << message;
  }
}

TEST(ParseDuration, MessageQuotesTheTextAndShowsTheAcceptedForms) {
  const std::string message = parse_duration_error("3d");
  EXPECT_EQ(message,
            "bad duration \"3d\": write a whole number and a unit (ms, s, m or h), such as 250ms, "
            "3s, 2m or 25h, up to a year");
}

TEST(FormatDuration, PicksTheLargestExactUnit) {
  EXPECT_EQ(format_duration(Millis{120'000}), "2m");
  EXPECT_EQ(format_duration(Millis{1'500}), "1500ms");
  EXPECT_EQ(format_duration(Millis{0}), "0ms");
  EXPECT_EQ(format_duration(Millis{250}), "250ms");
  EXPECT_EQ(format_duration(Millis{3'000}), "3s");
  EXPECT_EQ(format_duration(Millis{90'000}), "90s");
  EXPECT_EQ(format_duration(Millis{3'600'000}), "1h");
  EXPECT_EQ(format_duration(Millis{90'000'000}), "25h");
  EXPECT_EQ(format_duration(Millis{5'400'000}), "90m");
  EXPECT_EQ(format_duration(Millis{1}), "1ms");
}

TEST(FormatDuration, RoundTripsThroughParse) {
  for (const long long millis :
       {0LL, 1LL, 250LL, 999LL, 1'000LL, 1'500LL, 60'000LL, 61'000LL, 120'000LL, 3'600'000LL,
        3'660'000LL, 90'000'000LL, 8784LL * 3'600'000}) {
    SCOPED_TRACE(millis);
    EXPECT_EQ(parse_duration(format_duration(Millis{millis})), Millis{millis});
  }
  for (const std::string text : {"250ms", "3s", "2m", "25h", "1500ms", "90s", "0ms"}) {
    EXPECT_EQ(format_duration(parse_duration(text)), text);
  }
  // Not the shortest spelling: parsed, then written in the largest exact unit.
  EXPECT_EQ(format_duration(parse_duration("120s")), "2m");
  EXPECT_EQ(format_duration(parse_duration("3000ms")), "3s");
  EXPECT_EQ(format_duration(parse_duration("60m")), "1h");
  EXPECT_EQ(format_duration(parse_duration("0s")), "0ms");
}

}  // namespace
}  // namespace retryproof
