#include "provider/provider_command.hpp"

#include <pthread.h>
#include <signal.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/duration.hpp"
#include "common/json_text.hpp"
#include "provider/provider_server.hpp"

namespace retryproof::provider {
namespace {

struct ProviderOptions {
  ServerOptions server;
  ProviderConfig core;
  std::string plan_file;
  std::string key_ttl;
  std::string control_token;
  std::string profile = "baseline";
  std::string operation_field;
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

bool is_loopback(const std::string& host) {
  return host.starts_with("127.") || host == "::1" || host == "localhost";
}

int run_provider(ProviderOptions options) {
  try {
    if (!options.plan_file.empty()) options.core.initial_plan = read_plan_file(options.plan_file);
    if (!options.key_ttl.empty()) options.core.key_ttl = parse_duration(options.key_ttl);
    if (!options.control_token.empty()) options.core.control_token = options.control_token;
    options.core.profile = parse_profile(options.profile);
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
  } catch (const std::exception& error) {
    std::cerr << "retryproof provider: " << error.what() << '\n';
    return 2;
  }
  if (!is_loopback(options.server.host)) {
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

  options.core.log = [](const std::string& line) { std::cerr << line << '\n'; };
  try {
    ProviderServer server(options.core, options.server);
    std::cout << server.base_url() << std::endl;  // the first line: where to find us
    int received = 0;
    sigwait(&stop_signals, &received);
    std::cerr << "[provider] stopping on " << (received == SIGINT ? "SIGINT" : "SIGTERM") << '\n';
    server.stop();
  } catch (const std::exception& error) {
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
  command->add_option("--profile", options->profile, "Conformance profile: " + profiles)
      ->capture_default_str()
      ->check(CLI::IsMember(profile_names));
  command->add_option("--key-ttl", options->key_ttl,
                      "Forget idempotency keys older than this (250ms, 3s, 2m, 24h); a repeat is "
                      "then a new operation. Default: keys never expire");
  command->add_option("--operation-field", options->operation_field,
                      "Record this payload field's value (orderId, or a JSON Pointer such as "
                      "/metadata/orderId) in each create's journal entry, so that traffic can be "
                      "judged by business operation: retryproof judge, GET /_test/verdicts");
  command->add_option("--control-token", options->control_token,
                      "Require 'Authorization: Bearer TOKEN' on every /_test/ call");
  command
      ->add_option("--workers", options->server.workers,
                   "Worker threads; each delayed request holds one while it waits")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
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
