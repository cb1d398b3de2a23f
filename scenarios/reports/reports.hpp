// What a run of scenarios looks like to the people who read it: a terminal report, the
// whole result model as JSON, JUnit XML for CI test viewers and Markdown for a CI job
// summary. Pure functions of a RunSummary; they never run anything. One file per format
// under scenarios/reports/; report_formats() lists the ones `run` can write to a file.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/driver/run_result.hpp"
#include "scenarios/reports/exit_status.hpp"

namespace retryproof::scenarios {

// How time ran under --time-scale N, for the reports to say: the scale asked for, the one the
// run was judged at (1 when the clock probe found the client not following the scale), and
// the probe's finding. The scale each scenario ran at, when the scale guard chose a lower one
// for it, is each result's own (ScenarioResult::scale).
struct RunTimeScale {
  int asked = 1;
  int used = 1;
  std::string probe_finding = {};  // "follows", "ignores", ...; empty when nothing was probed
  std::string probe = {};          // the probe's sentence, "time scale 10: the client ..."
  // What the scale guard allowed a retry that does not wait at all, as measured before the
  // run, and the sentence that says so; 0 and empty when the run was not judged at a scale.
  int overhead_allowed_ms = 0;
  std::string overhead = {};

  bool scaled() const { return asked > 1; }
};

// How much of a journal a judgement of it read (GET /_test/verdicts: the entries in memory of
// those journaled; "judged N of M entries").
struct JournalShare {
  std::uint64_t judged = 0;
  std::uint64_t of = 0;
};

struct RunSummary {
  std::uint64_t seed;
  std::string client;  // as --client spells it
  std::vector<ScenarioResult> results;
  std::vector<std::string> paths;  // the scenario files and directories run, when not the catalog
  // A report of something other than `retryproof run` (retryproof judge) says what it
  // judged and the command that reproduces it; both empty for a run.
  std::string subject = {};  // "judge: traffic in journal.json, operations by orderId"
  std::string replay = {};   // "retryproof judge journal.json --operation-field orderId"
  RunTimeScale time_scale = {};
  std::string api = {};            // --api: the API every scenario ran on; empty: each its own
  std::string client_policy = {};  // --client-policy, as given: a replay judges by it too
  std::vector<std::string> skipped = {};  // "NAME on the API NAME: why it cannot run there"
  bool tls = false;                       // run --tls: the replay says so too
  bool simulate = false;                  // run --simulate: the replay says so too
  bool sessions = false;                  // run --sessions: the replay says so too
  // --inconclusive: how a scenario the run could not judge counts, which JUnit shows (an
  // error when not met, a failure when counted failed, skipped when counted passed).
  InconclusiveAs inconclusive_as = InconclusiveAs::not_met;
  // Set by a judgement of a live journal: JSON's "judged" and "of", JUnit's property
  // "judged", and the subject's words in the other formats.
  std::optional<JournalShare> journal_share = {};
};

// A block per scenario (mark, jobs, POSTs, outcomes, verdicts; for a scenario that missed
// its expectations also the attempt timeline and the client's standard error), then a
// summary line and the command that replays the run.
enum class Colour { off, on };
void write_terminal_report(std::ostream& out, const RunSummary& run, Colour colour);

// The whole result model: {"version","seed","client","summary","scenarios":[...]}.
nlohmann::json to_json(const RunSummary& run);

// One <testsuite> for the run, named after the client; one <testcase classname=SCENARIO
// name=VERDICT> per verdict (timed by the span of the requests it cites, when it cites
// any), and one named "expectations" per scenario (timed by the scenario's run).
void write_junit(std::ostream& out, const RunSummary& run);

// For a CI job summary: a table of scenarios, then the details (and a Mermaid sequence
// diagram of the attempts) of each scenario that missed its expectations.
void write_markdown(std::ostream& out, const RunSummary& run);

// One self-contained page: the live page's code (ui/assets/) inlined, rendering the run's
// JSON (to_json) embedded in it. Scripts and style are allowed by their hashes in the page's
// Content-Security-Policy; nothing is fetched.
void write_html(std::ostream& out, const RunSummary& run);

// A report `run` writes to a file: `--<option> FILE`.
struct ReportFormat {
  std::string_view option;  // "json", "junit", "markdown"
  std::string_view help;
  void (*write)(std::ostream& out, const RunSummary& run);
  std::string_view media_type;  // as GET /_test/verdicts?format=<option> serves it
};
const std::vector<ReportFormat>& report_formats();

}  // namespace retryproof::scenarios
