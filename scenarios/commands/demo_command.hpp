// `retryproof demo`: the three well-known situations against a live provider, narrated.
// A stand-in for the scenario runner until it exists.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::scenarios {

void add_demo_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::scenarios
