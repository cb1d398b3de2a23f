// Usage errors as a person can act on them: what was not understood, the closest known
// word ("did you mean"), and where the help is. CLI11's own wording says "A subcommand is
// required" for a misspelt command and for an unknown flag alike.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace retryproof::scenarios {

// One line (no newline) for `error`, thrown while `app` parsed its arguments: for an
// unknown command or option, its suggestion (an unknown option before any other error, a
// missing required one included); otherwise CLI11's message, with the command it belongs to
// and its --help.
std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace retryproof::scenarios
