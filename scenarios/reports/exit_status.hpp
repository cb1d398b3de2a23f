// What a run's exit status says, in one place for `run`, `judge` and `explore`: 0 when every
// scenario met its expectations, 1 when one failed (at --fail-on's threshold), 3 when none
// failed but one could not be judged, 2 for usage or bad input, 70 when an invariant of the
// harness itself broke. --inconclusive lets CI count the third answer as a pass or a failure.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/invariant.hpp"
#include "scenarios/driver/run_result.hpp"

namespace retryproof::scenarios {

inline constexpr int kExitMet = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInconclusive = 3;
inline constexpr int kExitInternalError = kInternalErrorExit;  // a bug of ours

// How an inconclusive scenario counts: not met (the default, exit 3), or as CI decides.
enum class InconclusiveAs { not_met, pass, fail };
// "not-met", "pass" or "fail"; throws std::invalid_argument otherwise.
InconclusiveAs parse_inconclusive_as(std::string_view text);
std::string to_string(InconclusiveAs as);
// The option's help, shared by the commands that take it.
std::string inconclusive_option_help();

int exit_status(const std::vector<ScenarioResult>& results, Severity fail_on,
                InconclusiveAs inconclusive);

// The line after the summary that says why the status is what it is, when the summary alone
// would not: policy failures let pass by --fail-on harm, and scenarios that could not be
// judged. Nothing otherwise.
void explain_exit_status(std::ostream& out, const std::vector<ScenarioResult>& results,
                         Severity fail_on, InconclusiveAs inconclusive, int status);

}  // namespace retryproof::scenarios
