// What a run of scenarios looks like to the people who read it: a terminal report, the whole
// result model as JSON, JUnit XML for CI test viewers and Markdown for a CI job summary.
// Pure functions of a RunSummary; they never run anything.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenarios/runner.hpp"

namespace retryproof::scenarios {

struct RunSummary {
  std::uint64_t seed;
  std::string client;  // as --client spells it
  std::vector<ScenarioResult> results;
};

// A block per scenario (mark, jobs, POSTs, outcomes, verdicts; for a scenario that missed its
// expectations also the attempt timeline and the client's standard error), then a summary
// line and the command that replays the run. ANSI colour only when `colour`.
void write_terminal_report(std::ostream& out, const RunSummary& run, bool colour);

// The whole result model: {"seed","client","summary","scenarios":[...]}.
nlohmann::json to_json(const RunSummary& run);

// Quoted for a command line a person pastes into a POSIX shell (plain words stay bare).
std::string shell_quote(std::string_view text);

// One <testsuite> for the run; one <testcase classname=SCENARIO name=VERDICT> per verdict, and
// one named "expectations" per scenario.
void write_junit(std::ostream& out, const RunSummary& run);

// For a CI job summary: a table of scenarios, then the details (and a Mermaid sequence
// diagram of the attempts) of each scenario that missed its expectations.
void write_markdown(std::ostream& out, const RunSummary& run);

}  // namespace retryproof::scenarios
