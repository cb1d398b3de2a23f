#include "provider/provider_command.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common/duration.hpp"
#include "common/invariant.hpp"
#include "common/temp_dir.hpp"
#include "provider/command_support.hpp"
#include "provider/log_destination.hpp"
#include "provider/log_sink.hpp"
#include "provider/memory_options.hpp"
#include "provider/outage.hpp"
#include "provider/provider_server.hpp"
#include "provider/tls_options.hpp"

namespace retryproof::provider {
namespace {

struct ProviderOptions {
  ServerOptions server;
  ProviderConfig core;
  std::string plan_file;
  std::string key_ttl;
  MemoryOptions memory;
  ControlTokenSources control_tokens;
  std::string profile;  // empty: the shape's, else baseline
  std::string api = "jobs";
  std::string operation_field;
  std::string idle_timeout = format_duration(ServerOptions{}.idle_timeout);
  std::string header_timeout = format_duration(ServerOptions{}.header_timeout);
  std::string body_timeout = format_duration(ServerOptions{}.body_timeout);
  std::string log = "stderr";
  TlsOptions tls;
};

int run_provider(ProviderOptions options) {
  std::optional<LogDestination> log_destination;
  try {
    log_destination.emplace(options.log);
    if (!options.plan_file.empty()) options.core.initial_plan = read_plan_file(options.plan_file);
    if (!options.key_ttl.empty()) options.core.key_ttl = parse_duration(options.key_ttl);
    apply_memory_options(options.memory, options.core);
    options.core.control_token = control_token(options.control_tokens);
    options.core.api = load_api_shape(options.api);
    // A shape implies the semantics of the API it copies, unless --profile says otherwise.
    options.core.profile = !options.profile.empty()
                               ? parse_profile(options.profile)
                               : options.core.api.profile.value_or(Profile::baseline);
    options.core.operation_field = operation_field(options.operation_field);
    options.server.idle_timeout = positive_duration("--idle-timeout", options.idle_timeout);
    options.server.header_timeout = positive_duration("--header-timeout", options.header_timeout);
    options.server.body_timeout = positive_duration("--body-timeout", options.body_timeout);
    load_tls_files(options.tls, options.server);
  } catch (const std::exception& error) {
    std::cerr << "retryproof provider: " << error.what() << '\n';
    return 2;
  }
  warn_if_exposed("provider", options.server.host, options.core.control_token.has_value());

  const sigset_t stop_signals = block_stop_signals();  // before any thread starts
  raise_descriptor_limit(options.server);

  // Declared before the server, so it outlives every request that logs.
  std::optional<LogSink> log_sink;
  if (log_destination->fd() >= 0) log_sink.emplace(log_destination->fd());
  const auto log = [&log_sink](const std::string& line) {
    if (log_sink) log_sink->write(line);
  };
  if (log_sink) options.core.log = log;
  try {
    const std::unique_ptr<TempDir> tls_files = generate_tls(options.tls, options.server);
    ProviderServer server(options.core, options.server);
    print_first_lines(std::cout, server.base_url(), tls_files.get());
    log(std::string("[provider] stopping on ") + wait_for_stop_signal(stop_signals));
    server.stop();
  } catch (const std::exception& error) {
    if (log_sink) log_sink->stop();
    std::cerr << "retryproof provider: " << error.what() << '\n';
    return 1;
  }
  // It served on after an invariant of its own broke (the request that met it got a 500 and
  // the message went to standard error then): its exit says the run cannot be trusted.
  if (recorded_internal_error()) return kInternalErrorExit;
  return 0;
}

// What the provider is: its seed, limits, plan, profile, API shape and key lifetime.
void add_semantics_options(CLI::App& command, ProviderOptions& options) {
  command
      .add_option("--seed", options.core.seed,
                  "Seed for job ids: the same seed and the same new operations give the same ids")
      ->capture_default_str();
  command
      .add_option("--max-body", options.core.max_body_bytes,
                  "Largest accepted request body in bytes; larger bodies get 413")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command
      .add_option("--plan", options.plan_file,
                  "Fault plan to install at start: a JSON file in the body format of POST "
                  "/_test/faults ({\"faults\": [...], \"chaos\": {...}})")
      ->check(CLI::ExistingFile);
  std::string profiles;
  std::vector<std::string> profile_names;
  for (const ProfileRules& rules : profile_catalogue()) {
    profiles += (profiles.empty() ? "" : "; ") + std::string(rules.name) + " (" +
                std::string(rules.summary) + ")";
    profile_names.emplace_back(rules.name);
  }
  command
      .add_option("--profile", options.profile,
                  "Conformance profile (default: the API shape's, else baseline): " + profiles)
      ->check(CLI::IsMember(profile_names));
  command
      .add_option("--api", options.api,
                  "The API the provider speaks: a built-in shape (" + api_shape_names() +
                      ") or a shape file (JSON, see docs/provider.md): its create and lookup "
                      "routes, where the key travels, body encodings, created objects, errors")
      ->capture_default_str();
  command.add_option("--key-ttl", options.key_ttl,
                     "Forget idempotency keys older than this (250ms, 3s, 2m, 24h); a repeat is "
                     "then a new operation. Default: keys never expire");
}

// How long a connection may idle, and a request take to arrive.
void add_connection_timeouts(CLI::App& command, ProviderOptions& options) {
  command
      .add_option("--idle-timeout", options.idle_timeout,
                  "Close a connection that starts no request for this long")
      ->capture_default_str();
  command
      .add_option("--header-timeout", options.header_timeout,
                  "A request head must be complete this long after its first byte (else 408)")
      ->capture_default_str();
  command
      .add_option("--body-timeout", options.body_timeout,
                  "A request body must be complete this long after its head (else 408)")
      ->capture_default_str();
}

// The faults a plan can name, each with what its client sees; then the outages.
std::string faults_footer() {
  std::string faults = "Faults a plan can name (POST /_test/faults, --plan):\n";
  for (const FaultRow& row : fault_catalogue()) {
    const std::string name = spelling(row);
    faults += "  " + name + std::string(name.size() < 32 ? 32 - name.size() : 1, ' ') +
              std::string(row.client_sees) + "\n";
  }
  faults +=
      "\nOutages fail every request that arrives in a window, replays and lookups too:\n"
      "{\"outages\": [{\"from\": \"1s\", \"for\": \"5s\", \"fault\": F, \"rate\": 1.0}]}, F one "
      "of " +
      outage_fault_names() + " (docs/provider.md, Outages).\n";
  return faults;
}

}  // namespace

void add_provider_command(CLI::App& app, int& exit_code, std::vector<ControlEndpoint> endpoints) {
  auto options = std::make_shared<ProviderOptions>();
  options->core.control_endpoints = std::move(endpoints);
  CLI::App* command = app.add_subcommand(
      "provider",
      "Run the misbehaving provider: an HTTP API that enforces idempotency keys and fails on "
      "command. Prints its URL on the first line, logs one line per request (to standard error "
      "unless --log says otherwise), and stops cleanly on SIGINT or SIGTERM.");
  add_listen_options(*command, options->server);
  add_semantics_options(*command, *options);
  add_memory_options(*command, options->memory);
  add_control_token_options(*command, options->control_tokens);
  add_operation_field_option(*command, options->operation_field);
  add_connection_timeouts(*command, *options);
  add_tls_options(*command, options->tls);
  command
      ->add_option("--log", options->log,
                   "Where the per-request log goes: none, stderr, or FILE (appended to). It is "
                   "written off the request path: a reader that falls behind loses lines, "
                   "counted, never the provider's speed")
      ->capture_default_str();
  command->footer(faults_footer());
  command->callback([options, &exit_code] { exit_code = run_provider(*options); });
}

}  // namespace retryproof::provider
