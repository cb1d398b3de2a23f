// JUnit XML, as CI test viewers read it: one test case per verdict per scenario, and one
// "expectations" case per scenario.
#include <algorithm>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

#include "common/utf8.hpp"
#include "scenarios/reports/load_reports.hpp"
#include "scenarios/reports/reports.hpp"
#include "scenarios/reports/text.hpp"
#include "scenarios/reports/traffic_reports.hpp"
#include "scenarios/reports/view.hpp"

namespace retryproof::scenarios {
namespace {

using namespace reports;

constexpr std::size_t kSystemErrLines = 200;  // in <system-err>

struct TestCase {
  // error: a verdict or scenario the run could not judge, shown by CI viewers as not passed
  // but apart from a failure the evidence proves.
  enum class Kind { passed, failure, error, skipped } kind = Kind::passed;
  std::string classname;
  std::string name;
  std::optional<double> seconds;  // none: nothing to time (a verdict that cites no request)
  std::string message;            // of <failure>, <error> or <skipped>
  std::string type = "harm";      // of <failure>: the severity; of <error>: "inconclusive"
  std::string body;               // of <failure> or <error>
  std::string system_out;
  std::string system_err;
};

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << seconds;
  return text.str();
}

// How long the scenario ran, on the provider's clock: from the first invocation's start
// to the later of the last one's end and the last answer (a held request may end after the
// client has gone).
double scenario_seconds(const ScenarioResult& result) {
  if (result.invocations.empty()) return 0;
  Millis first = result.invocations.front().started_at;
  Millis last = result.invocations.front().ended_at;
  for (const auto& invocation : result.invocations) {
    first = std::min(first, invocation.started_at);
    last = std::max(last, invocation.ended_at);
  }
  for (const JournalEntry& entry : result.journal)
    last = std::max(last, entry.answered_at.value_or(entry.at));
  return last > first ? static_cast<double>((last - first).count()) / 1000.0 : 0.0;
}

// How long a verdict's evidence spans on the provider's clock: from the first cited
// request's arrival to the end of the last one's answer. None when it cites nothing.
std::optional<double> evidence_seconds(const ScenarioResult& result,
                                       const std::vector<std::uint64_t>& cited) {
  std::optional<Millis> first;
  std::optional<Millis> last;
  for (const JournalEntry& entry : result.journal) {
    if (std::find(cited.begin(), cited.end(), entry.seq) == cited.end()) continue;
    const Millis end = std::max(entry.at, entry.answered_at.value_or(entry.at));
    first = std::min(first.value_or(entry.at), entry.at);
    last = std::max(last.value_or(end), end);
  }
  if (!first) return std::nullopt;
  return static_cast<double>((*last - *first).count()) / 1000.0;
}

// The run's timeline for a failure body; entries the verdict cites are marked with *.
std::string timeline_text(const ScenarioResult& result, const std::vector<std::uint64_t>& cited) {
  if (result.journal.empty()) return "timeline: no requests reached the provider\n";
  std::string text = "timeline (* marks the cited entries):\n";
  for (const JournalEntry& entry : result.journal) {
    const bool marked = std::find(cited.begin(), cited.end(), entry.seq) != cited.end();
    text += (marked ? "* " : "  ") + timeline_line(entry) + "\n";
  }
  return text;
}

std::string invocations_text(const ScenarioResult& result) {
  std::string text = "jobs " + std::to_string(result.jobs.size()) + ", POSTs " +
                     std::to_string(result.creates()) + "\n";
  for (const auto& invocation : result.invocations) {
    text += "invocation " + std::to_string(invocation.number()) + " (" +
            valid_utf8(invocation.operation) + "): " + outcome_text(invocation) + " [" +
            seq_range(invocation) + "]\n";
  }
  return text;
}

// What could not be judged, as --inconclusive counts it: an error by default, a failure when
// counted failed, skipped when counted passed.
void mark_inconclusive(TestCase& test, InconclusiveAs as, std::string reason, std::string body) {
  switch (as) {
    case InconclusiveAs::not_met:
      test.kind = TestCase::Kind::error;
      break;
    case InconclusiveAs::fail:
      test.kind = TestCase::Kind::failure;
      break;
    case InconclusiveAs::pass:
      test.kind = TestCase::Kind::skipped;
      reason += " (counted as passed: --inconclusive pass)";
      break;
  }
  test.type = "inconclusive";
  test.message = "inconclusive: " + std::move(reason);
  test.body = std::move(body);
}

TestCase verdict_case(const ScenarioResult& result, const Verdict& verdict, InconclusiveAs as) {
  TestCase test{.classname = result.name, .name = verdict.id};
  test.seconds = evidence_seconds(result, verdict.evidence);
  const std::string cited = "evidence: " + seq_list(verdict.evidence) + "\n";
  switch (read_verdict(result, verdict)) {
    case Reading::passed:
      test.system_out = verdict.explanation;
      break;
    case Reading::failed:
      test.kind = TestCase::Kind::failure;
      test.type = to_string(verdict.severity);
      test.message = verdict.explanation;
      test.body = cited + timeline_text(result, verdict.evidence);
      break;
    case Reading::expected_failure:
      test.system_out = "failed, as the scenario expects: " + verdict.explanation + "\n" + cited;
      break;
    case Reading::missed_violation:
      test.kind = TestCase::Kind::failure;
      test.message =
          "the scenario expects this verdict to fail; it " +
          std::string(verdict.status == VerdictStatus::pass ? "passed" : "did not apply") + ": " +
          verdict.explanation;
      test.body = timeline_text(result, {});
      break;
    case Reading::not_applicable:
      test.kind = TestCase::Kind::skipped;
      test.message = verdict.explanation;
      break;
    case Reading::inconclusive:
      mark_inconclusive(test, as, verdict.explanation, cited + timeline_text(result, {}));
      break;
  }
  return test;
}

TestCase expectations_case(const ScenarioResult& result, InconclusiveAs as) {
  TestCase test{.classname = result.name, .name = "expectations"};
  test.seconds = scenario_seconds(result);
  test.system_out = invocations_text(result);
  if (const std::string note = scale_note(result); !note.empty()) test.system_out += note + "\n";
  for (const provider::PlanUse& use : result.planned)
    test.system_out += "planned: " + use.describe() + "\n";
  if (!result.unmet.empty()) {
    test.kind = TestCase::Kind::failure;
    test.type = to_string(*worst_miss(result));
    test.message = join(unmet_texts(result), "; ");
    test.body = join(unmet_texts(result), "\n") + "\n" + timeline_text(result, {});
  } else if (!result.inconclusive.empty()) {
    mark_inconclusive(test, as, join(inconclusive_texts(result), "; "),
                      join(inconclusive_texts(result), "\n") + "\n" + timeline_text(result, {}));
  }
  for (const auto& invocation : result.invocations) {
    if (invocation.client_error.empty()) continue;
    test.system_err += "standard error of invocation " + std::to_string(invocation.number()) +
                       " (" + invocation.operation + "):\n" +
                       join(last(split_lines(invocation.standard_error), kSystemErrLines), "\n") +
                       "\n";
  }
  return test;
}

void write_test_case(std::ostream& out, const TestCase& test) {
  out << "    <testcase classname=\"" << xml_escape(test.classname, XmlPlace::attribute)
      << "\" name=\"" << xml_escape(test.name, XmlPlace::attribute) << "\"";
  if (test.seconds) out << " time=\"" << seconds_text(*test.seconds) << "\"";
  const bool empty =
      test.kind == TestCase::Kind::passed && test.system_out.empty() && test.system_err.empty();
  if (empty) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (test.kind == TestCase::Kind::failure || test.kind == TestCase::Kind::error) {
    const char* element = test.kind == TestCase::Kind::failure ? "failure" : "error";
    out << "      <" << element << " message=\"" << xml_escape(test.message, XmlPlace::attribute)
        << "\" type=\"" << test.type << "\">" << xml_escape(test.body, XmlPlace::text) << "</"
        << element << ">\n";
  } else if (test.kind == TestCase::Kind::skipped) {
    out << "      <skipped message=\"" << xml_escape(test.message, XmlPlace::attribute) << "\"/>\n";
  }
  if (!test.system_out.empty()) {
    out << "      <system-out>" << xml_escape(test.system_out, XmlPlace::text) << "</system-out>\n";
  }
  if (!test.system_err.empty()) {
    out << "      <system-err>" << xml_escape(test.system_err, XmlPlace::text) << "</system-err>\n";
  }
  out << "    </testcase>\n";
}

}  // namespace

void write_junit(std::ostream& out, const RunSummary& run) {
  std::vector<TestCase> cases;
  for (const auto& result : run.results) {
    for (const auto& verdict : result.verdicts)
      cases.push_back(verdict_case(result, verdict, run.inconclusive_as));
    cases.push_back(expectations_case(result, run.inconclusive_as));
  }
  std::size_t failures = 0;
  std::size_t errors = 0;
  std::size_t skipped = 0;
  for (const auto& test : cases) {
    failures += test.kind == TestCase::Kind::failure ? 1 : 0;
    errors += test.kind == TestCase::Kind::error ? 1 : 0;
    skipped += test.kind == TestCase::Kind::skipped ? 1 : 0;
  }
  // The scenarios' durations: a verdict's evidence lies within its scenario's.
  double seconds = 0;
  for (const auto& result : run.results)
    seconds += scenario_seconds(result);
  const std::string counts = "tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
                             std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
                             "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
                             seconds_text(seconds) + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"retryproof\" " << counts << ">\n";
  // Named after the client, so that CI viewers tell one client's run from another's.
  out << "  <testsuite name=\"" << xml_escape("retryproof: " + run.client, XmlPlace::attribute)
      << "\" " << counts << ">\n";
  out << "    <properties>\n";
  out << "      <property name=\"seed\" value=\"" << run.seed << "\"/>\n";
  out << "      <property name=\"client\" value=\"" << xml_escape(run.client, XmlPlace::attribute)
      << "\"/>\n";
  out << "      <property name=\"replay\" value=\""
      << xml_escape(replay_command(run), XmlPlace::attribute) << "\"/>\n";
  const auto property = [&](const std::string& name, const std::string& value) {
    out << "      <property name=\"" << xml_escape(name, XmlPlace::attribute) << "\" value=\""
        << xml_escape(value, XmlPlace::attribute) << "\"/>\n";
  };
  if (run.time_scale.scaled()) {
    property("time-scale", std::to_string(run.time_scale.asked));
    property("time-scale-used", std::to_string(run.time_scale.used));
    if (!run.time_scale.probe.empty()) property("clock-probe", run.time_scale.probe);
    if (!run.time_scale.overhead.empty()) property("retry-overhead", run.time_scale.overhead);
    const auto lowered = ran_below_scale(run);
    if (!lowered.empty()) property("time-scale-lowered", join(lowered, ", "));
  }
  if (run.journal_share) {
    property("judged", std::to_string(run.journal_share->judged) + " of " +
                           std::to_string(run.journal_share->of) + " entries");
  }
  // The operator's numbers of each fleet (and of judge), which a verdict does not carry.
  for (const auto& result : run.results) {
    if (result.numbers) property("operations: " + result.name, numbers_text(*result.numbers));
    // A traffic scenario's time to recover, as the terminal words it.
    if (result.traffic && result.traffic->trigger)
      property("recovery: " + result.name, reports::recovery_text(*result.traffic));
  }
  out << "    </properties>\n";
  for (const auto& test : cases)
    write_test_case(out, test);
  out << "  </testsuite>\n";
  out << "</testsuites>\n";
}

}  // namespace retryproof::scenarios
