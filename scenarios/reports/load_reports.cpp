#include "scenarios/reports/load_reports.hpp"

#include <cstdio>

#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios::reports {
namespace {

using nlohmann::json;

std::string at_text(Millis at) {
  return "+" + std::to_string(at.count()) + "ms";
}

// "outage +1000ms to +6000ms", "outages +1000ms to +2000ms, +5000ms to +6000ms"
std::string outages_text(const std::vector<OutageWindow>& outages) {
  std::vector<std::string> spans;
  for (const OutageWindow& outage : outages)
    spans.push_back(at_text(outage.from) + " to " + at_text(outage.until));
  return (outages.size() == 1 ? "outage " : "outages ") + join(spans, ", ");
}

// "120 succeeded, 40 failed, 12 no answer"
std::string fates_text(const LoadSeries& series) {
  return std::to_string(series.total(Fate::succeeded)) + " succeeded, " +
         std::to_string(series.total(Fate::failed)) + " failed, " +
         std::to_string(series.total(Fate::no_answer)) + " no answer";
}

json rate_json(int part, int whole) {
  return whole == 0 ? json(nullptr) : json(static_cast<double>(part) / whole);
}

}  // namespace

std::string rate_text(int part, int whole) {
  if (whole == 0) return "n/a";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * part / whole);
  return text;
}

std::string numbers_text(const OperatorNumbers& numbers) {
  return count_of(static_cast<std::size_t>(numbers.operations), "operation") + ": " +
         std::to_string(numbers.succeeded) + " succeeded (" +
         rate_text(numbers.succeeded, numbers.operations) + "), " +
         std::to_string(numbers.duplicated) + " duplicated (" +
         rate_text(numbers.duplicated, numbers.operations) + ")";
}

LoadSeries load_series_of(const ScenarioResult& result) {
  return load_series(result.journal, result.outages);
}

std::vector<std::string> load_terminal_lines(const ScenarioResult& result) {
  std::vector<std::string> lines;
  if (result.numbers) lines.push_back("  " + numbers_text(*result.numbers));
  if (!result.shows_load()) return lines;
  const LoadSeries series = load_series_of(result);
  if (series.buckets.empty()) {
    lines.push_back("  load: no requests reached the provider");
    return lines;
  }
  lines.push_back("  requests per " + width_text(series.width) + " from " +
                  at_text(series.start()) + ", peak " + std::to_string(series.peak()) + " (" +
                  fates_text(series) + "):");
  // Framed, so that quiet buckets at either end still show where the run began and ended.
  lines.push_back("    │" + sparkline(series) + "│");
  if (const std::string marks = outage_marks(series); !marks.empty())
    lines.push_back("     " + marks + "  " + outages_text(series.outages));
  return lines;
}

void write_load_markdown(std::ostream& out, const ScenarioResult& result) {
  if (!result.numbers && !result.shows_load()) return;
  out << "\n### " << markdown_text(result.name)
      << (result.shows_load() ? ": operations and load" : ": operations") << "\n\n";
  if (result.numbers) out << numbers_text(*result.numbers) << ".\n\n";
  if (!result.shows_load()) return;
  const LoadSeries series = load_series_of(result);
  if (series.buckets.empty()) {
    out << "No requests reached the provider.\n";
    return;
  }
  std::vector<std::string> labels;
  std::vector<std::string> requests;
  std::vector<std::string> unsuccessful;
  for (const LoadBucket& bucket : series.buckets) {
    labels.push_back("\"" + std::to_string(bucket.start.count()) + (bucket.in_outage ? "*" : "") +
                     "\"");
    requests.push_back(std::to_string(bucket.requests()));
    unsuccessful.push_back(std::to_string(bucket.failed + bucket.no_answer));
  }
  out << "```mermaid\nxychart-beta\n";
  out << "    title \"Requests per " << width_text(series.width)
      << (series.outages.empty() ? "" : " (* in an outage)") << "\"\n";
  out << "    x-axis \"ms\" [" << join(labels, ", ") << "]\n";
  out << "    y-axis \"requests\" 0 --> " << std::max(1, series.peak()) << '\n';
  out << "    bar [" << join(requests, ", ") << "]\n";
  out << "    line [" << join(unsuccessful, ", ") << "]\n";
  out << "```\n\n";
  out << "Bars: every request (" << fates_text(series) << "); line: those that did not succeed.";
  if (!series.outages.empty()) out << " " << outages_text(series.outages) << '.';
  out << '\n';
}

json load_json(const ScenarioResult& result) {
  const LoadSeries series = load_series_of(result);
  json outages = json::array();
  for (const OutageWindow& outage : series.outages)
    outages.push_back({{"fromMs", outage.from.count()}, {"untilMs", outage.until.count()}});
  json buckets = json::array();
  for (const LoadBucket& bucket : series.buckets) {
    buckets.push_back({{"startMs", bucket.start.count()},
                       {"requests", bucket.requests()},
                       {"succeeded", bucket.succeeded},
                       {"failed", bucket.failed},
                       {"noAnswer", bucket.no_answer},
                       {"inOutage", bucket.in_outage}});
  }
  return {{"bucketMs", series.width.count()},
          {"startMs", series.start().count()},
          {"peak", series.peak()},
          {"concurrency", result.concurrency},
          {"outages", std::move(outages)},
          {"buckets", std::move(buckets)}};
}

json numbers_json(const OperatorNumbers& numbers) {
  return {{"operations", numbers.operations},
          {"succeeded", numbers.succeeded},
          {"duplicated", numbers.duplicated},
          {"successRate", rate_json(numbers.succeeded, numbers.operations)},
          {"duplicateRate", rate_json(numbers.duplicated, numbers.operations)}};
}

std::string origin_text(const ScenarioResult& result, std::uint64_t seq) {
  if (seq == 0 || seq > result.origins.size()) return {};
  const EntryOrigin& origin = result.origins[seq - 1];
  return "journal " + std::to_string(origin.journal) + " seq " + std::to_string(origin.seq);
}

std::string origins_text(const ScenarioResult& result, const std::vector<std::uint64_t>& seqs) {
  std::vector<std::string> parts;
  for (const std::uint64_t seq : seqs) {
    if (const std::string origin = origin_text(result, seq); !origin.empty())
      parts.push_back("seq " + std::to_string(seq) + " is " + origin);
  }
  return join(parts, ", ");
}

}  // namespace retryproof::scenarios::reports
