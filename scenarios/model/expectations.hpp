// Whether a run met its scenario's expectations: exactly the expected verdicts failed, the
// provider holds the expected number of jobs, and each operation's last reported outcome is
// one the scenario allows.
#pragma once

#include <string>
#include <vector>

#include "scenarios/driver/run_result.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// One line per expectation the run missed, with how bad that is; empty when it met them
// all. A verdict's miss is as bad as the verdict; more jobs than expected is harm, fewer
// (work not done), or another final outcome, is policy: truthful-outcome judges whether an
// outcome was true.
std::vector<Unmet> unmet_expectations(const Scenario& scenario, const ScenarioResult& result);

// The verdicts that could not be judged, one line each, saying so when the scenario expected
// the verdict to flag its client (the harness could not show what it exists to catch).
// Reads result.verdicts and result.expected_violations.
std::vector<Inconclusive> inconclusive_verdicts(const ScenarioResult& result);

// Both, into the result: its unmet expectations, and its inconclusive verdicts after what
// the scenario as a whole could not tell (already in result.inconclusive).
void settle_expectations(const Scenario& scenario, ScenarioResult& result);

}  // namespace retryproof::scenarios
