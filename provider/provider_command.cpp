#include "provider/provider_command.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "common/duration.hpp"
#include "common/json_text.hpp"
#include "provider/control_plane_guard.hpp"
#include "provider/log_sink.hpp"
#include "provider/provider_server.hpp"

namespace retryproof::provider {
namespace {

constexpr const char* kTokenVariable = "RETRYPROOF_CONTROL_TOKEN";

struct ProviderOptions {
  ServerOptions server;
  ProviderConfig core;
  std::string plan_file;
  std::string key_ttl;
  std::string control_token;
  bool control_token_given = false;  // even as "", which is refused
  std::string control_token_file;
  std::string profile;  // empty: the shape's, else baseline
  std::string api = "jobs";
  std::string operation_field;
  std::string idle_timeout = format_duration(ServerOptions{}.idle_timeout);
  std::string header_timeout = format_duration(ServerOptions{}.header_timeout);
  std::string body_timeout = format_duration(ServerOptions{}.body_timeout);
};

// A configuration error, said the way a user can act on it.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

FaultPlan read_plan_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigError(path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& error) {
    throw ConfigError(path + ": not valid JSON: " + json_error_message(error));
  }
  try {
    return FaultPlan::from_json(body);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(path + ": " + error.what());
  }
}

std::string read_token_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigError("--control-token-file " + path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r'))
    token.pop_back();
  return token;
}

// The control token from --control-token, --control-token-file or the environment (the
// last two keep it out of `ps`). An empty one is an error: it would silently leave the
// control plane unprotected, which is never what the person who set it meant.
std::optional<std::string> control_token(const ProviderOptions& options) {
  if (options.control_token_given && !options.control_token_file.empty()) {
    throw ConfigError("give the control token once: --control-token or --control-token-file");
  }
  std::string token;
  std::string source;
  if (options.control_token_given) {
    token = options.control_token;
    source = "--control-token";
  } else if (!options.control_token_file.empty()) {
    token = read_token_file(options.control_token_file);
    source = "--control-token-file " + options.control_token_file;
  } else if (const char* variable = std::getenv(kTokenVariable)) {
    token = variable;
    source = kTokenVariable;
  } else {
    return std::nullopt;
  }
  if (token.empty()) {
    throw ConfigError("the control token from " + source +
                      " is empty, which would leave /_test/ unprotected; give a non-empty token, "
                      "or none at all");
  }
  return token;
}

Millis positive_duration(const std::string& flag, const std::string& text) {
  const Millis duration = parse_duration(text);
  if (duration <= Millis(0)) throw ConfigError(flag + " must be longer than 0ms");
  return duration;
}

// A process may open 1024 descriptors by default, fewer than --max-connections allows:
// raise the soft limit as far as the hard one permits, so the cap is what refuses.
void raise_descriptor_limit(const ServerOptions& server) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = server.max_connections + server.reserved_control_connections + 64;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

int run_provider(ProviderOptions options) {
  try {
    if (!options.plan_file.empty()) options.core.initial_plan = read_plan_file(options.plan_file);
    if (!options.key_ttl.empty()) options.core.key_ttl = parse_duration(options.key_ttl);
    options.core.control_token = control_token(options);
    options.core.api = load_api_shape(options.api);
    // A shape implies the semantics of the API it copies, unless --profile says otherwise.
    options.core.profile = !options.profile.empty() ? parse_profile(options.profile)
                                                    : options.core.api.profile.value_or(Profile::baseline);
    if (!options.operation_field.empty()) {
      options.core.operation_field = options.operation_field;
      if (options.operation_field.starts_with('/')) {
        try {
          (void)nlohmann::json::json_pointer(options.operation_field);
        } catch (const nlohmann::json::exception&) {
          throw ConfigError("--operation-field " + options.operation_field +
                            ": not a JSON Pointer; write a top-level field name (orderId) or a "
                            "pointer such as /metadata/orderId");
        }
      }
    }
    options.server.idle_timeout = positive_duration("--idle-timeout", options.idle_timeout);
    options.server.header_timeout = positive_duration("--header-timeout", options.header_timeout);
    options.server.body_timeout = positive_duration("--body-timeout", options.body_timeout);
  } catch (const std::exception& error) {
    std::cerr << "retryproof provider: " << error.what() << '\n';
    return 2;
  }
  if (!is_loopback_host(options.server.host)) {
    std::cerr << "retryproof provider: warning: listening on " << options.server.host
              << " exposes the control plane (/_test/) to the network"
              << (options.core.control_token ? "; it requires the control token\n"
                                             : "; set --control-token to protect it\n");
  }

  // Block the stop signals before any thread starts, so every thread inherits the mask
  // and this one alone receives them, in sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A reader of standard error that goes away must not kill the provider: the log
  // writer gets EPIPE instead, and sockets are written with MSG_NOSIGNAL anyway.
  signal(SIGPIPE, SIG_IGN);
  raise_descriptor_limit(options.server);

  // Declared before the server, so it outlives every request that logs.
  LogSink log_sink(STDERR_FILENO);
  options.core.log = [&log_sink](const std::string& line) { log_sink.write(line); };
  try {
    ProviderServer server(options.core, options.server);
    std::cout << server.base_url() << std::endl;  // the first line: where to find us
    int received = 0;
    sigwait(&stop_signals, &received);
    log_sink.write(std::string("[provider] stopping on ") +
                   (received == SIGINT ? "SIGINT" : "SIGTERM"));
    server.stop();
  } catch (const std::exception& error) {
    log_sink.stop();
    std::cerr << "retryproof provider: " << error.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

void add_provider_command(CLI::App& app, int& exit_code, std::vector<ControlEndpoint> endpoints) {
  auto options = std::make_shared<ProviderOptions>();
  options->core.control_endpoints = std::move(endpoints);
  CLI::App* command = app.add_subcommand(
      "provider",
      "Run the misbehaving provider: an HTTP API that enforces idempotency keys and fails on "
      "command. Prints its URL on the first line, logs one line per request to standard error, "
      "and stops cleanly on SIGINT or SIGTERM.");
  command
      ->add_option("--host", options->server.host,
                   "Address to listen on; anything but loopback exposes the control plane")
      ->capture_default_str();
  command->add_option("--port", options->server.port, "TCP port; 0 picks a free one")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  command
      ->add_option("--seed", options->core.seed,
                   "Seed for job ids: the same seed and the same new operations give the same ids")
      ->capture_default_str();
  command
      ->add_option("--max-body", options->core.max_body_bytes,
                   "Largest accepted request body in bytes; larger bodies get 413")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--plan", options->plan_file,
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
      ->add_option("--profile", options->profile,
                   "Conformance profile (default: the API shape's, else baseline): " + profiles)
      ->check(CLI::IsMember(profile_names));
  command
      ->add_option("--api", options->api,
                   "The API the provider speaks: a built-in shape (" + api_shape_names() +
                       ") or a shape file (JSON, see docs/provider.md): its create and lookup "
                       "routes, where the key travels, body encodings, created objects, errors")
      ->capture_default_str();
  command->add_option("--key-ttl", options->key_ttl,
                      "Forget idempotency keys older than this (250ms, 3s, 2m, 24h); a repeat is "
                      "then a new operation. Default: keys never expire");
  command->add_option("--operation-field", options->operation_field,
                      "Record this payload field's value (orderId, or a JSON Pointer such as "
                      "/metadata/orderId) in each create's journal entry, so that traffic can be "
                      "judged by business operation: retryproof judge, GET /_test/verdicts");
  command->add_option_function<std::string>(
      "--control-token",
      [options](const std::string& token) {
        options->control_token = token;
        options->control_token_given = true;
      },
      "Require 'Authorization: Bearer TOKEN' on every /_test/ call (visible in ps: prefer "
      "--control-token-file or the RETRYPROOF_CONTROL_TOKEN environment variable)");
  command->add_option("--control-token-file", options->control_token_file,
                      "Read the control token from FILE (one line)");
  command
      ->add_option("--workers", options->server.workers,
                   "I/O threads; any number of connections share them, and a delayed request "
                   "holds none")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  command
      ->add_option("--max-connections", options->server.max_connections,
                   "Connections served at once; beyond them a connection gets 503 "
                   "capacity_exhausted at once (a few more are kept for /_test/ calls)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  command
      ->add_option("--idle-timeout", options->idle_timeout,
                   "Close a connection that starts no request for this long")
      ->capture_default_str();
  command
      ->add_option("--header-timeout", options->header_timeout,
                   "A request head must be complete this long after its first byte (else 408)")
      ->capture_default_str();
  command
      ->add_option("--body-timeout", options->body_timeout,
                   "A request body must be complete this long after its head (else 408)")
      ->capture_default_str();
  std::string faults = "Faults a plan can name (POST /_test/faults, --plan):\n";
  for (const FaultRow& row : fault_catalogue()) {
    const std::string name = spelling(row);
    faults += "  " + name + std::string(name.size() < 32 ? 32 - name.size() : 1, ' ') +
              std::string(row.client_sees) + "\n";
  }
  command->footer(faults);
  command->callback([options, &exit_code] { exit_code = run_provider(*options); });
}

}  // namespace retryproof::provider
