// `retryproof proxy`: the fault-injecting reverse proxy, as a subcommand.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::proxy {

void add_proxy_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::proxy
