// `retryproof run`: the product's main job. Runs scenarios against a client and says,
// with evidence, whether it retries safely. Exit 0 when every scenario meets its
// expectations, 1 when one does not, 2 for a usage or catalog error.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::scenarios {

void add_run_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::scenarios
