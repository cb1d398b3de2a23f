// `retryproof proxy`: the fault-injecting reverse proxy, as a subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "provider/provider_core.hpp"

namespace retryproof::proxy {

// `endpoints` are /_test/ endpoints of layers above the proxy (GET /_test/verdicts), as the
// provider's command takes them.
void add_proxy_command(CLI::App& app, int& exit_code,
                       std::vector<provider::ControlEndpoint> endpoints = {});

}  // namespace retryproof::proxy
