// `retryproof provider`: the misbehaving provider as a long-running process.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::provider {

// Adds the subcommand to `app`; when it runs, its exit status goes to `exit_code`.
void add_provider_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::provider
