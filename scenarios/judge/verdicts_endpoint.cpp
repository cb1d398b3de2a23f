#include "scenarios/judge/verdicts_endpoint.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "common/percent_encoding.hpp"
#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios {
namespace {

// application/x-www-form-urlencoded: '+' is a space, then %XX escapes.
std::string form_decode(std::string text) {
  std::replace(text.begin(), text.end(), '+', ' ');
  return percent_decode(text);
}

constexpr std::string_view kText = "text";  // the terminal report, without colour

std::string format_names() {
  std::string names;
  for (const ReportFormat& format : report_formats())
    names += std::string(format.option) + ", ";
  return names + std::string(kText);
}

const ReportFormat* report_format(std::string_view name) {
  for (const ReportFormat& format : report_formats()) {
    if (format.option == name) return &format;
  }
  return nullptr;
}

}  // namespace

VerdictsQuery verdicts_query(const std::string& query, const std::string& recorded_field,
                             std::string_view server) {
  const std::string who = "this " + std::string(server);
  // Its callers declare a promise as its query does: policy=... (the embed helpers'
  // verdicts(policy=...) too), not run's --client-policy.
  VerdictsQuery asked{
      .traffic = {.operation_field = recorded_field, .declare_with = "policy=", .name = "traffic"}};
  TrafficOptions& options = asked.traffic;
  for (std::size_t start = 0, end = 0; start < query.size(); start = end + 1) {
    end = std::min(query.find('&', start), query.size());
    const std::string pair = query.substr(start, end - start);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    const std::string name = form_decode(pair.substr(0, equals));
    const std::string value =
        equals == std::string::npos ? "" : form_decode(pair.substr(equals + 1));
    if (name == "policy") {
      options.declared = parse_client_policy(value);
    } else if (name == "operationField") {
      if (recorded_field.empty()) {
        throw std::invalid_argument("operationField=" + value + ": " + who +
                                    " records no operation field; start it with "
                                    "--operation-field " +
                                    value + " to judge by it");
      }
      if (value != recorded_field) {
        throw std::invalid_argument("operationField=" + value + ": " + who + " records " +
                                    recorded_field + " (--operation-field " + recorded_field +
                                    "); ask for operationField=" + recorded_field +
                                    ", or start it with --operation-field " + value);
      }
    } else if (name == "format") {
      if (value != kText && report_format(value) == nullptr) {
        throw std::invalid_argument("format=" + value + ": expected one of " + format_names());
      }
      asked.format = value;
    } else {
      throw std::invalid_argument("unknown parameter \"" + name +
                                  "\"; known: operationField, policy, format");
    }
  }
  return asked;
}

provider::ControlEndpoint verdicts_endpoint() {
  return {.path = "/_test/verdicts",
          .error_code = "invalid_verdicts_query",
          .answer = [](const std::string& query, const std::vector<provider::JournalEntry>& journal,
                       const provider::ControlContext& context) -> provider::ControlAnswer {
            VerdictsQuery asked =
                verdicts_query(query, context.operation_field.value_or(""), context.server);
            if (context.api != nullptr) asked.traffic.api = *context.api;
            // The entries in memory, of every entry journaled: fewer once --journal-limit moved
            // some out (a saved journal, judged by `retryproof judge`, has them all).
            const JournalShare share{
                .judged = journal.size(),
                .of = std::max<std::uint64_t>(context.journaled, journal.size())};
            // What it does not hold, each verdict that could change is inconclusive: the
            // judgement is of what was read, and says so.
            for (provider::MissingEntries& missing :
                 provider::gaps_in(journal, 1,
                                   "not in memory, so not judged live: judge a saved copy of "
                                   "GET /_test/journal, which reads the --journal-file too"))
              asked.traffic.gaps.push_back({1, std::move(missing)});
            const RunSummary summary{
                .seed = context.seed,
                .client = "traffic",
                .results = {judge_traffic(journal, asked.traffic)},
                .subject = "verdicts: the " + std::string(context.server) +
                           "'s journal, live, judged " + std::to_string(share.judged) + " of " +
                           std::to_string(share.of) + " entries",
                .replay = "GET /_test/verdicts" + (query.empty() ? "" : "?" + query),
                .journal_share = share};
            std::ostringstream report;
            if (asked.format == kText) {
              write_terminal_report(report, summary, Colour::off);
              return {report.str(), "text/plain; charset=utf-8"};
            }
            const ReportFormat& format = *report_format(asked.format);
            format.write(report, summary);
            return {report.str(), std::string(format.media_type)};
          }};
}

}  // namespace retryproof::scenarios
