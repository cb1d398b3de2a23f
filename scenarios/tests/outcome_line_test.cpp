// The outcome line: the last JSON object a client prints on standard output.
#include "scenarios/model/outcome_line.hpp"

#include <gtest/gtest.h>

namespace retryproof::scenarios {
namespace {

TEST(OutcomeLine, IsTheLastJsonObjectWhateverIsPrintedBeforeIt) {
  const auto reading = read_outcome_line(
      "starting up\n{\"note\":\"a library's "
      "log\"}\n\n{\"outcome\":\"succeeded\",\"jobId\":\"job_1\"}\n");
  ASSERT_TRUE(reading.line) << reading.problem;
  EXPECT_EQ(reading.line->outcome, Reported::succeeded);
  EXPECT_EQ(reading.line->job_id, "job_1");
}

TEST(OutcomeLine, AnObjectFollowedByPlainTextIsStillTheOutcome) {
  const auto reading = read_outcome_line("{\"outcome\":\"unknown\"}\nbye\n");
  ASSERT_TRUE(reading.line) << reading.problem;
  EXPECT_EQ(reading.line->outcome, Reported::unknown);
}

TEST(OutcomeLine, SaysWhatWasPrintedWhenNothingIsAnOutcome) {
  EXPECT_EQ(read_outcome_line("").problem, "printed no outcome line");
  EXPECT_EQ(read_outcome_line("\n  \n").problem, "printed no outcome line");
  EXPECT_EQ(read_outcome_line("done\n").problem, "printed \"done\", which is not a JSON object");
  EXPECT_EQ(
      read_outcome_line("{\"outcome\":\"maybe\"}\n").problem,
      "printed \"{\"outcome\":\"maybe\"}\": \"outcome\" must be succeeded, failed or unknown");
  EXPECT_EQ(read_outcome_line("{\"outcome\":\"succeeded\"}\n").problem,
            "printed \"{\"outcome\":\"succeeded\"}\": a succeeded outcome names its \"jobId\"");
}

}  // namespace
}  // namespace retryproof::scenarios
