// What a scaled run allows a retry that does not wait at all: measured before the run on this
// machine (the no-backoff mutant at real time, and the clock probe's view of an external
// client), never less than the least allowance, and what the scale guard then decides with.
#include "scenarios/process/retry_overhead.hpp"

#include <gtest/gtest.h>

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;
using provider::RequestKind;

JournalEntry create(std::uint64_t seq, std::int64_t at, std::int64_t answered_after) {
  return {.seq = seq,
          .at = Millis(at),
          .method = "POST",
          .path = "/jobs",
          .kind = RequestKind::create,
          .answered_at = Millis(at + answered_after)};
}

TEST(RetryOverhead, TheLongestGapIsFromAnAnswerToTheNextCreate) {
  JournalEntry lookup = create(3, 40, 1);
  lookup.kind = RequestKind::lookup;  // not a create: neither ends nor starts a gap
  // Creates answered at 10, 32 and 60; the next ones at 30 (gap 20), 40 (gap 8) and 61.
  const std::vector<JournalEntry> journal = {create(1, 5, 5), create(2, 30, 2), lookup,
                                             create(4, 40, 20), create(5, 61, 0)};
  EXPECT_EQ(longest_retry_gap(journal), Millis(20));
  EXPECT_FALSE(longest_retry_gap({create(1, 0, 5)}));  // no retry, nothing measured
}

TEST(RetryOverhead, TheProbeShowsTheOverheadItsScaleMultiplied) {
  // At scale 10 each of two retries counted its real overhead 9 times more: 36 ms over 18.
  ClockProbe probe{
      .scale = TimeScale(10), .waited_at_real_time = Millis(304), .waited_at_scale = Millis(340)};
  EXPECT_EQ(probed_overhead(probe), Millis(2));
  probe.waited_at_scale = Millis(290);  // waited less at the scale: no overhead shows
  EXPECT_EQ(probed_overhead(probe), Millis(0));
  probe.waited_at_scale.reset();
  EXPECT_FALSE(probed_overhead(probe));
}

TEST(RetryOverhead, TheAllowanceIsTwiceTheLongestButNeverBelowTheLeast) {
  EXPECT_EQ(allowed_overhead(std::nullopt), kLeastRetryOverhead);
  EXPECT_EQ(allowed_overhead(Millis(4)), kLeastRetryOverhead);
  EXPECT_EQ(allowed_overhead(Millis(15)), Millis(30));
}

TEST(RetryOverhead, AMeasuredAllowanceLowersTheScale) {
  const JudgedPolicy floor_50{.min_backoff = Millis(50)};
  const JudgedPolicy floor_200{.min_backoff = Millis(200)};
  // A quiet machine (1 ms, the least allowed: 10): a no-wait retry measures 50 ms at scale 5.
  EXPECT_EQ(scale_for(floor_50, TimeScale(10), allowed_overhead(Millis(1))).scale, TimeScale(5));
  EXPECT_EQ(scale_for(floor_200, TimeScale(10), allowed_overhead(Millis(1))).scale, TimeScale(10));
  // One where it takes 15 ms (30 allowed): the 50 ms floor is judged at real time, 200 at 6.
  EXPECT_EQ(scale_for(floor_50, TimeScale(10), allowed_overhead(Millis(15))).scale, TimeScale(1));
  EXPECT_EQ(scale_for(floor_200, TimeScale(10), allowed_overhead(Millis(15))).scale, TimeScale(6));
}

TEST(RetryOverhead, TheSentenceSaysWhatWasMeasuredAndWhatIsAllowed) {
  EXPECT_EQ(describe_overhead(TimeScale(10), Millis(8), Millis(16)),
            "time scale 10: a retry that does not wait at all took up to 8 ms here; the scale "
            "guard allows 16 ms for one (10 at least, 2 times the longest measured)");
  EXPECT_EQ(describe_overhead(TimeScale(10), std::nullopt, Millis(10)),
            "time scale 10: a retry that does not wait at all could not be measured; the scale "
            "guard allows 10 ms for one (10 at least, 2 times the longest measured)");
}

// A real measurement: the no-backoff mutant, a process, through three 503s at real time.
TEST(RetryOverhead, TheNoBackoffMutantIsMeasuredAtRealTimeBeforeAScaledRun) {
  const RunOptions options{.executable = RETRYPROOF_BINARY, .time_scale = TimeScale(10)};
  const auto measured = measure_no_wait_retry(options);
  ASSERT_TRUE(measured) << "the no-backoff mutant did not retry";
  EXPECT_GE(*measured, Millis(0));
  // And a scaled run settles with at least the least allowance, and says so.
  const SettledScale settled = settle_time_scale(options, Millis(1000));
  EXPECT_GE(settled.retry_overhead, kLeastRetryOverhead);
  EXPECT_NE(settled.overhead_note.find("a retry that does not wait at all took up to "),
            std::string::npos)
      << settled.overhead_note;
}

}  // namespace
}  // namespace retryproof::scenarios
