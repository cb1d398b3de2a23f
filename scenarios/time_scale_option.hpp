// `--time-scale N`, as `run` and `explore` both take it.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::scenarios {

// Adds the option to `command`, storing the factor in `factor` (1 when absent); a value
// that is not a whole number from 1 to TimeScale::kMaxFactor is a usage error saying so.
void add_time_scale_option(CLI::App& command, int& factor);

}  // namespace retryproof::scenarios
