// `retryproof deliver --target URL --events FILE`: inbound duplicate delivery. Sends each
// event as a webhook with the duplicates real providers send, seeded, and prints what it
// sent. Exit 0 when every delivery was acknowledged (a 2xx), 1 when one was not, 2 for bad
// input.
#pragma once

#include <CLI/CLI.hpp>

namespace retryproof::deliver {

void add_deliver_command(CLI::App& app, int& exit_code);

}  // namespace retryproof::deliver
