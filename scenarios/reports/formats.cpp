#include <ostream>

#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios {
namespace {

void write_json(std::ostream& out, const RunSummary& run) {
  out << to_json(run).dump(2) << '\n';
}

}  // namespace

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats = {
      {"json", "Also write the whole result as JSON to this file", write_json, "application/json"},
      {"junit", "Also write a JUnit XML report to this file", write_junit, "application/xml"},
      {"markdown", "Also write a Markdown report (with sequence diagrams of failures) to this file",
       write_markdown, "text/markdown; charset=utf-8"},
      {"html",
       "Also write one self-contained HTML page of the run to this file (failing scenarios "
       "first, each with its timeline, verdicts and the invocations to review), which opens "
       "offline in any browser",
       write_html, "text/html; charset=utf-8"},
  };
  return formats;
}

}  // namespace retryproof::scenarios
