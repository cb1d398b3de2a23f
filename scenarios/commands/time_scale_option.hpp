// `--time-scale N`, as `run` and `explore` both take it, and settle it before the first run.
#pragma once

#include <CLI/CLI.hpp>

#include "scenarios/process/clock_probe.hpp"
#include "scenarios/reports/reports.hpp"

namespace retryproof::scenarios {

// Adds the option to `command`, storing the factor in `factor` (1 when absent); a value
// that is not a whole number from 1 to TimeScale::kMaxFactor is a usage error saying so.
void add_time_scale_option(CLI::App& command, int& factor);

// Settles options.time_scale for options.client (settle_time_scale), leaves in `options` the
// scale and the guard's allowance the run uses, and returns what its reports say of them.
// Throws as settle_time_scale does.
RunTimeScale settle_for_run(RunOptions& options, Millis tightest_timeout);

}  // namespace retryproof::scenarios
