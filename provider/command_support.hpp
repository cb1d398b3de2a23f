// What the `provider` and `proxy` subcommands share: reading a --plan file and the
// control token, and serving until SIGINT or SIGTERM. Errors are std::runtime_error with
// a message a user can act on.
#pragma once

#include <signal.h>

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "common/millis.hpp"
#include "provider/fault_plan.hpp"
#include "provider/server_options.hpp"

namespace retryproof::provider {

// A plan file in the body format of POST /_test/faults. The message names the file, and
// the line and column of a JSON syntax error or the entry that is wrong.
FaultPlan read_plan_file(const std::string& path);

// Where a control token may come from. A flag wins over RETRYPROOF_CONTROL_TOKEN.
struct ControlTokenSources {
  std::optional<std::string> flag;  // --control-token, when given (even as "")
  std::string file;                 // --control-token-file, or empty
};

// --control-token and --control-token-file, into `sources`.
void add_control_token_options(CLI::App& command, ControlTokenSources& sources);

// The token, or nothing when no source gives one. An empty token is an error: it would
// silently leave the control plane unprotected, which is never what its owner meant.
std::optional<std::string> control_token(const ControlTokenSources& sources);

// --operation-field, the provider's and the proxy's.
void add_operation_field_option(CLI::App& command, std::string& field);
// The field the journal records (empty text: none). Throws std::runtime_error when a field
// that starts with '/' is not a JSON Pointer.
std::optional<std::string> operation_field(const std::string& text);

// A duration flag that must be longer than zero ("--idle-timeout", "5s").
Millis positive_duration(const std::string& flag, const std::string& text);

// --host, --port, --workers and --max-connections, into `server`.
void add_listen_options(CLI::App& command, ServerOptions& server);

// Says on standard error that a control plane listening beyond loopback is exposed.
void warn_if_exposed(const std::string& command, const std::string& host, bool has_token);

// Blocks SIGINT and SIGTERM in this thread, before any other starts, so that every thread
// inherits the mask and wait_for_stop_signal alone receives them; ignores SIGPIPE, so a
// reader of standard error that goes away costs log lines only.
sigset_t block_stop_signals();
// Waits for SIGINT or SIGTERM; returns its name.
const char* wait_for_stop_signal(const sigset_t& signals);

// A process may open 1024 descriptors by default, fewer than --max-connections allows:
// raises the soft limit as far as the hard one permits, so the cap is what refuses.
void raise_descriptor_limit(const ServerOptions& server);

}  // namespace retryproof::provider
