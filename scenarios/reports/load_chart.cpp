#include "scenarios/reports/load_chart.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace retryproof::scenarios::reports {
namespace {

using provider::JournalEntry;

// Round widths a person reads at a glance, smallest first.
constexpr std::array<std::int64_t, 19> kRoundWidthsMs = {
    1,    2,    5,     10,    20,    50,    100,    200,    500,   1000,
    2000, 5000, 10000, 20000, 30000, 60000, 120000, 300000, 600000};
constexpr std::int64_t kHourMs = 3'600'000;

std::int64_t floor_div(std::int64_t value, std::int64_t by) {
  return value / by - (value % by != 0 && value < 0 ? 1 : 0);
}

std::size_t buckets_spanned(Millis first, Millis last, std::int64_t width) {
  return static_cast<std::size_t>(floor_div(last.count(), width) - floor_div(first.count(), width) +
                                  1);
}

// The levels of a sparkline, lowest first.
constexpr std::array<const char*, 8> kBlocks = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

}  // namespace

Fate fate_of(const JournalEntry& entry) {
  if (!entry.delivered() || !entry.status) return Fate::no_answer;
  return *entry.status >= 200 && *entry.status < 300 ? Fate::succeeded : Fate::failed;
}

int LoadSeries::peak() const {
  int most = 0;
  for (const LoadBucket& bucket : buckets)
    most = std::max(most, bucket.requests());
  return most;
}

int LoadSeries::total(Fate fate) const {
  int sum = 0;
  for (const LoadBucket& bucket : buckets) {
    sum += fate == Fate::succeeded ? bucket.succeeded
           : fate == Fate::failed  ? bucket.failed
                                   : bucket.no_answer;
  }
  return sum;
}

Millis bucket_width(Millis first, Millis last) {
  for (const std::int64_t width : kRoundWidthsMs) {
    if (buckets_spanned(first, last, width) <= kMostBuckets) return Millis(width);
  }
  // Longer than 40 × 10 min: whole hours.
  std::int64_t hours = 1;
  while (buckets_spanned(first, last, hours * kHourMs) > kMostBuckets)
    ++hours;
  return Millis(hours * kHourMs);
}

LoadSeries load_series(const std::vector<JournalEntry>& journal,
                       const std::vector<OutageWindow>& outages) {
  LoadSeries series{.outages = outages};
  std::optional<Millis> first;
  std::optional<Millis> last;
  const auto widen = [&](Millis at) {
    first = first ? std::min(*first, at) : at;
    last = last ? std::max(*last, at) : at;
  };
  for (const JournalEntry& entry : journal)
    widen(entry.at);
  for (const OutageWindow& outage : outages) {
    widen(outage.from);
    widen(std::max(outage.from, outage.until - Millis(1)));  // its last moment
  }
  if (!first) return series;

  series.width = bucket_width(*first, *last);
  const std::int64_t width = series.width.count();
  const std::int64_t origin = floor_div(first->count(), width);
  const std::size_t count = buckets_spanned(*first, *last, width);
  for (std::size_t i = 0; i < count; ++i) {
    LoadBucket bucket{.start = Millis((origin + static_cast<std::int64_t>(i)) * width)};
    const Millis end = bucket.start + series.width;
    bucket.in_outage = std::any_of(outages.begin(), outages.end(), [&](const OutageWindow& o) {
      return o.from < end && bucket.start < o.until;
    });
    series.buckets.push_back(bucket);
  }
  for (const JournalEntry& entry : journal) {
    LoadBucket& bucket =
        series.buckets[static_cast<std::size_t>(floor_div(entry.at.count(), width) - origin)];
    switch (fate_of(entry)) {
      case Fate::succeeded:
        ++bucket.succeeded;
        break;
      case Fate::failed:
        ++bucket.failed;
        break;
      case Fate::no_answer:
        ++bucket.no_answer;
        break;
    }
  }
  return series;
}

std::string blocks_line(const std::vector<long long>& values) {
  const long long peak = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  std::string line;
  for (const long long value : values) {
    if (value <= 0) {
      line += ' ';
      continue;
    }
    // Rounded up, so that one request among thousands still shows.
    const long long levels = static_cast<long long>(kBlocks.size());
    const long long level = (value * levels + peak - 1) / peak;
    line += kBlocks[static_cast<std::size_t>(level - 1)];
  }
  return line;
}

std::string sparkline(const LoadSeries& series) {
  std::vector<long long> requests;
  for (const LoadBucket& bucket : series.buckets)
    requests.push_back(bucket.requests());
  return blocks_line(requests);
}

std::string outage_marks(const LoadSeries& series) {
  std::string line;
  std::size_t pending_spaces = 0;
  for (const LoadBucket& bucket : series.buckets) {
    if (!bucket.in_outage) {
      ++pending_spaces;
      continue;
    }
    line += std::string(pending_spaces, ' ') + "─";
    pending_spaces = 0;
  }
  return line;
}

std::string width_text(Millis width) {
  const std::int64_t ms = width.count();
  if (ms >= 60'000 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + " min";
  if (ms >= 1000 && ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

}  // namespace retryproof::scenarios::reports
