// `retryproof judge JOURNAL.json`: verdicts from traffic alone, for a service that makes its
// own calls. Exit 0 when no verdict fails, 1 when one does, 2 for bad input (the file, the
// entry and the field named).
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::scenarios {

void add_judge_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::scenarios
