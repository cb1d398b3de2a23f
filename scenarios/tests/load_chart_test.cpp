// The fleet's load over time: bucket widths, the series a journal and its outages give, and
// the sparkline and outage marks drawn from it.
#include "scenarios/reports/load_chart.hpp"

#include <gtest/gtest.h>

#include "scenarios/tests/report_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace reports;
using provider::JournalEntry;
using provider::Outcome;
using report_fixture::entry;

// A request that arrived at `at` and was answered 201, 503, or not at all.
JournalEntry created(std::uint64_t seq, std::int64_t at) {
  return entry(seq, at, "k" + std::to_string(seq), Outcome::new_operation, "none", 201, "job");
}
JournalEntry refused(std::uint64_t seq, std::int64_t at) {
  return entry(seq, at, "k", Outcome::new_operation, "fail-before-commit", 503, {});
}
JournalEntry dropped(std::uint64_t seq, std::int64_t at) {
  return entry(seq, at, "k", Outcome::new_operation, "commit-then-drop", {}, "job");
}

std::vector<int> counts(const LoadSeries& series) {
  std::vector<int> result;
  for (const LoadBucket& bucket : series.buckets)
    result.push_back(bucket.requests());
  return result;
}

TEST(BucketWidth, IsTheSmallestRoundWidthThatFitsFortyBuckets) {
  EXPECT_EQ(bucket_width(Millis(0), Millis(0)), Millis(1));
  EXPECT_EQ(bucket_width(Millis(0), Millis(39)), Millis(1));
  EXPECT_EQ(bucket_width(Millis(0), Millis(40)), Millis(2));  // 41 buckets of 1 ms
  EXPECT_EQ(bucket_width(Millis(0), Millis(399)), Millis(10));
  EXPECT_EQ(bucket_width(Millis(0), Millis(400)), Millis(20));
  EXPECT_EQ(bucket_width(Millis(0), Millis(999)), Millis(50));
  EXPECT_EQ(bucket_width(Millis(0), Millis(7000)), Millis(200));
  EXPECT_EQ(bucket_width(Millis(0), Millis(60'000)), Millis(2000));
  // Buckets are aligned to the width, so a span that straddles an edge needs one more.
  // 400 ms from 5 to 404 would fit 40 buckets of 10 ms, but 0-9 to 400-409 is 41.
  EXPECT_EQ(bucket_width(Millis(5), Millis(404)), Millis(20));
  EXPECT_EQ(bucket_width(Millis(0), Millis(5 * 3'600'000)), Millis(600'000));
  EXPECT_EQ(bucket_width(Millis(0), Millis(10 * 3'600'000)), Millis(3'600'000));
}

TEST(LoadSeries, AnEmptyRunHasNoBuckets) {
  const LoadSeries series = load_series({}, {});
  EXPECT_EQ(series.width, Millis(0));
  EXPECT_TRUE(series.buckets.empty());
  EXPECT_EQ(series.peak(), 0);
  EXPECT_EQ(sparkline(series), "");
  EXPECT_EQ(outage_marks(series), "");
}

TEST(LoadSeries, RequestsAtOneMomentAreOneBucket) {
  const LoadSeries series = load_series({created(1, 7), refused(2, 7)}, {});
  ASSERT_EQ(series.buckets.size(), 1u);
  EXPECT_EQ(series.width, Millis(1));
  EXPECT_EQ(series.start(), Millis(7));
  EXPECT_EQ(series.buckets[0].succeeded, 1);
  EXPECT_EQ(series.buckets[0].failed, 1);
  EXPECT_EQ(sparkline(series), "█");
}

TEST(LoadSeries, ARequestOnABucketsEdgeIsInTheLaterBucket) {
  // 0 to 1000 ms: 21 buckets of 50 ms.
  const LoadSeries series =
      load_series({created(1, 0), created(2, 49), created(3, 50), created(4, 1000)}, {});
  EXPECT_EQ(series.width, Millis(50));
  ASSERT_EQ(series.buckets.size(), 21u);
  EXPECT_EQ(series.buckets[0].requests(), 2);
  EXPECT_EQ(series.buckets[1].requests(), 1);
  EXPECT_EQ(series.buckets[1].start, Millis(50));
  EXPECT_EQ(series.buckets[20].requests(), 1);
  EXPECT_EQ(series.buckets[20].start, Millis(1000));
}

TEST(LoadSeries, SplitsRequestsByWhatBecameOfThem) {
  const LoadSeries series = load_series({created(1, 0), refused(2, 0), dropped(3, 0)}, {});
  EXPECT_EQ(series.total(Fate::succeeded), 1);
  EXPECT_EQ(series.total(Fate::failed), 1);
  EXPECT_EQ(series.total(Fate::no_answer), 1);
}

TEST(LoadSeries, MarksTheBucketsAnOutageOverlaps) {
  const LoadSeries series =
      load_series({created(1, 0), created(2, 1000)}, {{Millis(200), Millis(400)}});
  ASSERT_EQ(series.width, Millis(50));
  std::vector<bool> marked;
  for (const LoadBucket& bucket : series.buckets)
    marked.push_back(bucket.in_outage);
  std::vector<bool> expected(21, false);
  for (std::size_t i = 4; i < 8; ++i)
    expected[i] = true;  // 200, 250, 300 and 350; 400 is after it
  EXPECT_EQ(marked, expected);
  EXPECT_EQ(outage_marks(series), "    ────");
}

TEST(LoadSeries, AnOutageWithoutRequestsIsStillDrawn) {
  const LoadSeries series = load_series({created(1, 100)}, {{Millis(1000), Millis(3000)}});
  EXPECT_EQ(series.width, Millis(100));
  EXPECT_EQ(series.start(), Millis(100));
  ASSERT_EQ(series.buckets.size(), 29u);  // 100 to 2999
  EXPECT_EQ(counts(series)[0], 1);
  EXPECT_EQ(series.peak(), 1);
  EXPECT_EQ(sparkline(series), "█" + std::string(28, ' '));
  EXPECT_EQ(outage_marks(series).size(), 9 + 20 * std::string("─").size());
}

TEST(Sparkline, ScalesToThePeakAndShowsEveryRequest) {
  std::vector<JournalEntry> journal;
  std::uint64_t seq = 0;
  // 1 request in bucket 0, none in 1, 4 in 2, 8 in 3 (the peak): 10 ms apart, width 1.
  for (const auto& [at, n] : std::vector<std::pair<int, int>>{{0, 1}, {2, 4}, {3, 8}}) {
    for (int i = 0; i < n; ++i)
      journal.push_back(created(++seq, at));
  }
  const LoadSeries series = load_series(journal, {});
  EXPECT_EQ(counts(series), (std::vector<int>{1, 0, 4, 8}));
  EXPECT_EQ(sparkline(series), "▁ ▄█");
}

TEST(WidthText, ReadsAsAPersonWouldSayIt) {
  EXPECT_EQ(width_text(Millis(200)), "200 ms");
  EXPECT_EQ(width_text(Millis(2000)), "2 s");
  EXPECT_EQ(width_text(Millis(120000)), "2 min");
}

}  // namespace
}  // namespace retryproof::scenarios
