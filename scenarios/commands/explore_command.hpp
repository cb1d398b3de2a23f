// `retryproof explore`: random fault schedules against any client over real HTTP. On
// the first violation it prints the schedule and the verdicts, shrinks the schedule to
// the smallest one that still fails, saves it as a scenario file, and prints the exact
// command that replays it.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::scenarios {

void add_explore_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::scenarios
