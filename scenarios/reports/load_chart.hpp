// The fleet's load over time, as an operator reads an incident: data-plane requests per time
// bucket across the run, split by what became of them, with the outages marked. Pure
// functions of a journal and the outage windows; the report formats render the series
// (load_reports.hpp).
#pragma once

#include <string>
#include <vector>

#include "common/millis.hpp"
#include "provider/journal.hpp"
#include "scenarios/model/outage.hpp"

namespace retryproof::scenarios::reports {

// What became of a request, by the facts its entry records.
enum class Fate {
  succeeded,  // a whole 2xx response
  failed,     // a whole response of any other status
  no_answer,  // dropped, reset, cut, or never answered
};
Fate fate_of(const provider::JournalEntry& entry);

struct LoadBucket {
  Millis start{0};
  int succeeded = 0;
  int failed = 0;
  int no_answer = 0;
  bool in_outage = false;  // it overlaps an outage window

  int requests() const { return succeeded + failed + no_answer; }
};

struct LoadSeries {
  Millis width{0};  // of each bucket; 0 when there is nothing to draw
  std::vector<LoadBucket> buckets;
  std::vector<OutageWindow> outages;

  Millis start() const { return buckets.empty() ? Millis(0) : buckets.front().start; }
  int peak() const;  // the most requests in one bucket
  int total(Fate fate) const;
};

// A chart fits a terminal line and a readable x-axis: at most this many buckets.
constexpr std::size_t kMostBuckets = 40;

// The smallest round width (1, 2 or 5 times a power of ten ms, then seconds and minutes)
// that spans [first, last] in at most kMostBuckets buckets aligned to it.
Millis bucket_width(Millis first, Millis last);

// Requests by arrival, over the span from the earlier of the first request and the first
// outage to the later of the last request and the last outage's end. Empty (width 0) when
// there are neither requests nor outages.
LoadSeries load_series(const std::vector<provider::JournalEntry>& journal,
                       const std::vector<OutageWindow>& outages);

// One character a value: a space for 0, else ▁ to █ by its share of the largest (any value
// above 0 at least ▁, the largest █).
std::string blocks_line(const std::vector<long long>& values);
// One character a bucket: blocks_line of its requests.
std::string sparkline(const LoadSeries& series);
// Under the sparkline: ─ under each bucket in an outage, spaces elsewhere (trailing ones
// dropped).
std::string outage_marks(const LoadSeries& series);

// "200 ms", "1 s", "2 min": a width as a person reads it.
std::string width_text(Millis width);

}  // namespace retryproof::scenarios::reports
