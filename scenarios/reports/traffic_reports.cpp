#include "scenarios/reports/traffic_reports.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "common/listing.hpp"
#include "scenarios/evidence/goodput.hpp"
#include "scenarios/reports/load_chart.hpp"
#include "scenarios/reports/text.hpp"

namespace retryproof::scenarios::reports {
namespace {

using nlohmann::json;

// A series the pictures draw, in the order they draw it: its name, what its largest value is
// called, and its value in a column.
struct Series {
  const char* name;
  const char* largest;
  long long (*of)(const TrafficColumn&);
};
const std::array<Series, 6> kSeries = {{
    {"offered", "peak", [](const TrafficColumn& c) -> long long { return c.arrived; }},
    {"goodput", "peak", [](const TrafficColumn& c) -> long long { return c.succeeded; }},
    {"creates", "peak", [](const TrafficColumn& c) -> long long { return c.creates; }},
    {"lookups", "peak", [](const TrafficColumn& c) -> long long { return c.lookups; }},
    {"shed", "peak", [](const TrafficColumn& c) -> long long { return c.shed; }},
    {"queue", "deepest",
     [](const TrafficColumn& c) -> long long { return static_cast<long long>(c.deepest_queue); }},
}};
constexpr std::size_t kQueueSeries = 5;  // drawn apart in Markdown: its scale is not a rate's
constexpr std::size_t kNameWidth = 8;

std::vector<long long> values_of(const TrafficColumns& columns, const Series& series) {
  std::vector<long long> values;
  for (const TrafficColumn& column : columns.columns)
    values.push_back(series.of(column));
  return values;
}

long long largest_of(const std::vector<long long>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

std::string at_text(Millis at) {
  return "+" + std::to_string(at.count()) + "ms";
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", share * 100);
  return text;
}

std::string per_text(const TrafficColumns& columns) {
  return width_text(Millis(1000LL * columns.seconds_each));
}

void add(TrafficColumn& column, const GoodputSecond& second) {
  column.arrived += second.arrived;
  column.succeeded += second.succeeded;
  column.creates += second.creates;
  column.lookups += second.lookups;
  column.shed += second.shed;
  column.deepest_queue = std::max(column.deepest_queue, second.deepest_queue);
}

}  // namespace

TrafficColumns traffic_columns(const TrafficPicture& picture, std::size_t most) {
  TrafficColumns result;
  const std::size_t count = picture.seconds.size();
  result.seconds_each = static_cast<int>(std::max<std::size_t>(1, (count + most - 1) / most));
  const auto each = static_cast<std::size_t>(result.seconds_each);
  for (std::size_t i = 0; i < count; i += each) {
    TrafficColumn column{.from = picture.seconds[i].from};
    for (std::size_t j = i; j < std::min(count, i + each); ++j)
      add(column, picture.seconds[j]);
    column.until = column.from + Millis(1000LL * result.seconds_each);
    column.in_trigger = picture.trigger && picture.trigger->from < column.until &&
                        column.from < picture.trigger->until;
    result.columns.push_back(column);
  }
  return result;
}

std::string recovery_text(const TrafficPicture& picture) {
  if (!picture.trigger) return "";
  const std::string ended = "the trigger ended at " + at_text(picture.trigger->until);
  const std::string bound =
      "recovery's bound is " + std::to_string(picture.recover_within.count()) + " ms";
  if (!picture.baseline_known) {
    return "time to recover: could not tell (too few operations arrived before the trigger to "
           "know its success rate; " +
           ended + ")";
  }
  const std::string before = "success " + percent(picture.baseline) + " before the trigger";
  if (!picture.recovered_after) {
    return "time to recover: did not recover while traffic lasted (" + ended + "; " + before +
           "; " + bound + ")";
  }
  return "time to recover: " + std::to_string(picture.recovered_after->count()) + " ms after " +
         ended + " (" + before + ", back to " + percent(kRecoveredShare) + " of it; " + bound + ")";
}

std::vector<std::string> traffic_terminal_lines(const ScenarioResult& result) {
  if (!result.traffic || result.traffic->seconds.empty()) return {};
  const TrafficPicture& picture = *result.traffic;
  const TrafficColumns columns = traffic_columns(picture);
  std::vector<std::string> lines;
  lines.push_back("  traffic per " + per_text(columns) + " from " +
                  at_text(columns.columns.front().from) +
                  (picture.trigger ? ", the trigger " + at_text(picture.trigger->from) + " to " +
                                         at_text(picture.trigger->until) + " marked ─"
                                   : std::string()) +
                  ":");
  for (const Series& series : kSeries) {
    const std::vector<long long> values = values_of(columns, series);
    std::string name = series.name;
    name.resize(kNameWidth, ' ');
    lines.push_back("    " + name + "│" + blocks_line(values) + "│ " + series.largest + " " +
                    std::to_string(largest_of(values)));
  }
  std::string marks;
  for (const TrafficColumn& column : columns.columns)
    marks += column.in_trigger ? "─" : " ";
  if (marks.find("─") != std::string::npos) {
    marks.erase(marks.find_last_not_of(' ') + 1);
    lines.push_back(std::string(4 + kNameWidth + 1, ' ') + marks);
  }
  if (const std::string recovery = recovery_text(picture); !recovery.empty())
    lines.push_back("  " + recovery);
  for (const std::string& kill : kill_lines(result))
    lines.push_back("  " + kill);
  return lines;
}

std::vector<std::string> kill_lines(const ScenarioResult& result) {
  // A kill ends one process of its instance: its killed runs, by (instance, process).
  std::map<std::pair<int, int>, std::vector<const InvocationResult*>> kills;
  for (const InvocationResult& invocation : result.invocations) {
    if (invocation.killed && invocation.instance)
      kills[{*invocation.instance, invocation.process}].push_back(&invocation);
  }
  constexpr std::size_t kNamed = 5;
  std::vector<std::string> lines;
  for (const auto& [process, killed] : kills) {
    std::vector<std::string> numbers;
    for (const InvocationResult* run : killed)
      numbers.push_back(std::to_string(run->number()));
    lines.push_back("killed: instance " + std::to_string(process.first + 1) + " at " +
                    at_text(killed.front()->ended_at) + ", " + std::to_string(killed.size()) +
                    (killed.size() == 1 ? " operation" : " operations") + " cut short (invocation" +
                    (killed.size() == 1 ? " " : "s ") + first_of(numbers, kNamed) +
                    "), each run again on its next process (\"rerunOf\" in the JSON report)");
  }
  return lines;
}

namespace {

void write_xychart(std::ostream& out, const std::string& title, const std::string& y_axis,
                   const std::vector<std::string>& labels,
                   const std::vector<std::vector<long long>>& series) {
  long long top = 1;
  for (const std::vector<long long>& values : series)
    top = std::max(top, largest_of(values));
  out << "```mermaid\nxychart-beta\n";
  out << "    title \"" << title << "\"\n";
  out << "    x-axis \"s\" [" << join(labels, ", ") << "]\n";
  out << "    y-axis \"" << y_axis << "\" 0 --> " << top << '\n';
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::vector<std::string> numbers;
    for (const long long value : series[i])
      numbers.push_back(std::to_string(value));
    out << "    " << (i == 0 ? "bar" : "line") << " [" << join(numbers, ", ") << "]\n";
  }
  out << "```\n\n";
}

}  // namespace

void write_traffic_markdown(std::ostream& out, const ScenarioResult& result) {
  if (!result.traffic || result.traffic->seconds.empty()) return;
  const TrafficPicture& picture = *result.traffic;
  const TrafficColumns columns = traffic_columns(picture);
  out << "\n### " << markdown_text(result.name) << ": traffic over time\n\n";
  std::vector<std::string> labels;
  for (const TrafficColumn& column : columns.columns) {
    labels.push_back("\"" + std::to_string(column.from.count() / 1000) +
                     (column.in_trigger ? "*" : "") + "\"");
  }
  std::vector<std::vector<long long>> rates;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kQueueSeries; ++i) {
    rates.push_back(values_of(columns, kSeries[i]));
    if (i > 0) names.push_back(kSeries[i].name);
  }
  const std::string marked = picture.trigger ? " (* in the trigger)" : "";
  write_xychart(out, "Operations and requests per " + per_text(columns) + marked,
                "per " + per_text(columns), labels, rates);
  out << "Bars: operations offered (arrived); lines, in order: " << join(names, ", ")
      << " (goodput: the operations that arrived and succeeded; creates and lookups: the "
         "requests the provider saw).\n\n";
  write_xychart(out, "The provider's queue, deepest per " + per_text(columns) + marked, "requests",
                labels, {values_of(columns, kSeries[kQueueSeries])});
  if (picture.trigger) {
    out << "The trigger: " << at_text(picture.trigger->from) << " to "
        << at_text(picture.trigger->until) << ". ";
    std::string recovery = recovery_text(picture);
    recovery[0] = 'T';
    out << recovery << ".\n";
  }
}

json traffic_json(const TrafficPicture& picture) {
  json seconds = json::array();
  for (const GoodputSecond& second : picture.seconds) {
    const bool in_trigger = picture.trigger && picture.trigger->from < second.from + Millis(1000) &&
                            second.from < picture.trigger->until;
    seconds.push_back({{"startMs", second.from.count()},
                       {"offered", second.arrived},
                       {"succeeded", second.succeeded},
                       {"creates", second.creates},
                       {"lookups", second.lookups},
                       {"shed", second.shed},
                       {"queueDepth", second.deepest_queue},
                       {"inTrigger", in_trigger}});
  }
  const char* recovery = !picture.trigger          ? "no trigger"
                         : !picture.baseline_known ? "could not tell"
                         : picture.recovered_after ? "recovered"
                                                   : "not recovered";
  return {{"secondMs", 1000},
          {"lengthMs", picture.length.count()},
          {"recoverWithinMs", picture.recover_within.count()},
          {"trigger", picture.trigger ? json{{"fromMs", picture.trigger->from.count()},
                                             {"untilMs", picture.trigger->until.count()}}
                                      : json(nullptr)},
          {"baseline", picture.baseline_known ? json(picture.baseline) : json(nullptr)},
          {"recoveredAfterMs",
           picture.recovered_after ? json(picture.recovered_after->count()) : json(nullptr)},
          {"recovery", recovery},
          {"recoveryText", recovery_text(picture)},
          {"seconds", std::move(seconds)}};
}

}  // namespace retryproof::scenarios::reports
