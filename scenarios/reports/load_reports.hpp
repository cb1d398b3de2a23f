// The fleet's load and the operator's numbers in each report format: a sparkline for the
// terminal, a Mermaid xychart for Markdown, the series for JSON. Shown for a scenario that is
// a fleet or has an outage (ScenarioResult::shows_load), and the numbers wherever the
// result has them (fleets, outages, judge); a scenario of one client at a time without an
// outage reads as it always has. Also where a merged journal's entries came from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "scenarios/driver/run_result.hpp"
#include "scenarios/reports/load_chart.hpp"

namespace retryproof::scenarios::reports {

// "91.7%"; one decimal, so that 1 duplicate in 1,000 operations does not read as 0%.
std::string rate_text(int part, int whole);
// "12 operations: 11 succeeded (91.7%), 1 duplicated (8.3%)"
std::string numbers_text(const OperatorNumbers& numbers);

// The series of a result's journal and outages.
LoadSeries load_series_of(const ScenarioResult& result);

// Its lines in a scenario's terminal block, indented by two spaces: the numbers, and the
// sparkline with its width, peak, totals and the outages marked under it.
std::vector<std::string> load_terminal_lines(const ScenarioResult& result);

// Its Markdown section ("### NAME: operations and load"): the numbers and a Mermaid
// xychart-beta of requests per bucket. Nothing when the result has neither.
void write_load_markdown(std::ostream& out, const ScenarioResult& result);

// {"bucketMs", "startMs", "peak", "concurrency", "outages": [{"fromMs", "untilMs"}],
//  "buckets": [{"startMs", "requests", "succeeded", "failed", "noAnswer", "inOutage"}]}
nlohmann::json load_json(const ScenarioResult& result);
// {"operations", "succeeded", "duplicated", "successRate", "duplicateRate"} (rates 0 to 1,
// null when there are no operations)
nlohmann::json numbers_json(const OperatorNumbers& numbers);

// "journal 2 seq 7": where the merged entry `seq` came from; empty when the result's journal
// was not merged from several.
std::string origin_text(const ScenarioResult& result, std::uint64_t seq);
// "seq 14 is journal 2 seq 7, seq 15 is journal 1 seq 3"; empty when not merged.
std::string origins_text(const ScenarioResult& result, const std::vector<std::uint64_t>& seqs);

}  // namespace retryproof::scenarios::reports
