// `retryproof ui-snapshot URL --token-file F --png out.png [--dump-text out.txt]`: the live
// page of a provider or proxy (GET /_test/ui) as headless Chromium draws it, for CI and for
// machines with no display, the control token given to a loopback relay (token_relay.hpp)
// rather than to the browser, a URL or a log. A page that could not read its server (the
// token missing or wrong, the server gone) is still shot, showing "unknown", and the command
// exits 1 saying why: a snapshot of nothing never passes for a clean one.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::scenarios {

void add_ui_snapshot_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::scenarios
