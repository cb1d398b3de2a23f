// `retryproof client`: one operation run by the reference client (or a mutant) as an
// external client would run it, printing the contract's one JSON outcome line.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::client {

void add_client_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::client
