// The view of a run that every report format shares: how a verdict reads against what the
// scenario expected, one-line renderings of outcomes, responses and journal entries, and
// the command that replays a run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios::reports {

using provider::JournalEntry;

// A verdict read against what the scenario expects of it.
enum class Reading {
  passed,
  failed,            // and the scenario does not expect it to
  expected_failure,  // failed, as the scenario expects
  missed_violation,  // the scenario expects it to fail; it passed or did not apply
  not_applicable,
  inconclusive,  // the run lacked the evidence to judge it, expected to fail or not
};
Reading read_verdict(const ScenarioResult& result, const Verdict& verdict);

std::size_t count_met(const RunSummary& run);
std::size_t count_inconclusive(const RunSummary& run);  // scenarios that missed nothing but
                                                        // could not be judged whole
// "PASS", "FAIL (harm)", "INCONCLUSIVE": how the reports mark a scenario.
std::string scenario_mark(const ScenarioResult& result);
// "  could not tell: ..." lines' texts: what an inconclusive scenario lacked, each once.
std::vector<std::string> inconclusive_texts(const ScenarioResult& result);
// The worst of a scenario's misses, when it has any.
std::optional<Severity> worst_miss(const ScenarioResult& result);
// "20 scenarios: 18 met their expectations, 2 did not (1 with harm, 1 policy only), 1
// inconclusive"
std::string summary_line(const RunSummary& run);
// "[harm] the provider holds 2 jobs; expected 1"
std::string unmet_text(const Unmet& unmet);
std::vector<std::string> unmet_texts(const ScenarioResult& result);
// "judged by attempts 3, min-backoff 50 ms, timeout 1000 ms, lookup-first"
std::string policy_text(const JudgedPolicy& policy);
// "retryproof run --seed 7 --client mutant:blind-retry", or the summary's own replay.
std::string replay_command(const RunSummary& run);
// The same for one scenario of it: "... --filter NAME" (a summary's own replay as it is).
std::string replay_command(const RunSummary& run, const ScenarioResult& result);
// What the report's heading says was judged: "run: seed 7, client reference", or the
// summary's own subject; under --time-scale N also ", time scale 10", or ", time scale 10
// asked, judged at real time" when the clock probe found the client not following it.
std::string run_subject(const RunSummary& run);
// That tail alone: "", ", time scale 10", ", time scale 10 asked, judged at real time".
std::string time_scale_subject(const RunTimeScale& scale);
// The strings as a JSON array, each made valid UTF-8 so that dump() cannot throw.
nlohmann::json strings_json(const std::vector<std::string>& strings);
// {"asked": 10, "used": 10, "clockProbe": {"finding", "text"} or null, "retryOverhead":
// {"allowedMs", "text"} or null}: used is 1 when the probe found the client not following
// the scale.
nlohmann::json time_scale_json(const RunTimeScale& scale);
// What a reader of the report must know about the time scale, a sentence each: the clock
// probe's finding, what the scale guard allows a no-wait retry, and which scenarios ran at a
// lower scale (the line scale_guard.hpp's scale_summary writes). None at real time.
std::vector<std::string> time_scale_notes(const RunSummary& run);
// The scenarios of the run that ran below the scale asked for.
std::vector<std::string> ran_below_scale(const RunSummary& run);
// The scale one scenario ran at and why, for its block, when that is below the run's; empty
// when it ran at the run's scale.
std::string scale_note(const ScenarioResult& result);

// "succeeded jobId=job_1", "killed by SIGKILL", "client error: no outcome line (exit code 1)".
std::string outcome_text(const InvocationResult& invocation);
// "seq 3-5", "seq 3", "no requests"
std::string seq_range(const InvocationResult& invocation);
// The seqs of `seqs` that `text` does not already name ("seq 4"), so that a report adds
// only the evidence an explanation leaves out.
std::vector<std::uint64_t> seqs_not_mentioned(std::string_view text,
                                              const std::vector<std::uint64_t>& seqs);
// "seq 1, 4", or "no journal entries cited"
std::string seq_list(const std::vector<std::uint64_t>& seqs);

// The fault an entry took, when it is not `none`.
std::optional<std::string> applied_fault(const JournalEntry& entry);
// "201", "201 (not delivered)", "no response"
std::string response_text(const JournalEntry& entry);
// "#3 +120ms POST /jobs key=K new fault=commit-then-drop -> no response job=job_1"
std::string timeline_line(const JournalEntry& entry);

// The seqs that failed verdicts cite.
std::set<std::uint64_t> evidence_of_failures(const ScenarioResult& result);

}  // namespace retryproof::scenarios::reports
