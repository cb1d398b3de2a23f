#include "proxy/proxy_command.hpp"

#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "common/duration.hpp"
#include "provider/command_support.hpp"
#include "provider/log_sink.hpp"
#include "provider/memory_options.hpp"
#include "provider/tls_options.hpp"
#include "proxy/proxy_faults.hpp"
#include "proxy/proxy_server.hpp"

namespace retryproof::proxy {
namespace {

struct ProxyOptions {
  provider::ServerOptions server{.port = 4041};
  ProxyConfig core;
  std::string upstream;
  std::string api = "jobs";
  std::string plan_file;
  std::string operation_field;
  std::string key_ttl;
  provider::ControlTokenSources control_tokens;
  std::size_t max_body_bytes = 1024 * 1024;
  std::string connect_timeout = format_duration(UpstreamLimits{}.connect_timeout);
  std::string upstream_timeout = format_duration(UpstreamLimits{}.response_timeout);
  std::string upstream_ca;   // empty: an https upstream is verified against the system's CAs
  provider::TlsOptions tls;  // what the proxy serves its own clients
  provider::MemoryOptions memory;
};

// What the proxy's flags settle before anything starts.
struct ProxySettings {
  UpstreamUrl upstream;
  UpstreamLimits limits;
  UpstreamTrust trust;
};

// Reads and checks the flags into `options.core` and the upstream's settings. Throws a
// usage error naming the flag to fix.
ProxySettings settle(ProxyOptions& options) {
  ProxySettings settled;
  try {
    settled.upstream = parse_upstream_url(options.upstream);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(std::string("--upstream ") + error.what());
  }
  options.core.api = provider::load_api_shape(options.api);
  if (!options.plan_file.empty()) {
    options.core.initial_plan = provider::read_plan_file(options.plan_file);
  }
  if (!options.key_ttl.empty()) {
    if (!options.core.enforce_keys) {
      throw std::invalid_argument(
          "--key-ttl needs --enforce-keys: otherwise keys are the upstream's to forget");
    }
    options.core.key_ttl = parse_duration(options.key_ttl);
  }
  options.core.control_token = provider::control_token(options.control_tokens);
  provider::MemoryLimits memory = provider::read_memory_options(options.memory);
  options.core.max_keys = memory.max_keys;
  options.core.journal = std::move(memory.journal);
  options.core.operation_field = provider::operation_field(options.operation_field);
  settled.limits.connect_timeout =
      provider::positive_duration("--connect-timeout", options.connect_timeout);
  settled.limits.response_timeout =
      provider::positive_duration("--upstream-timeout", options.upstream_timeout);
  if (!options.upstream_ca.empty()) {
    if (!settled.upstream.tls) {
      throw std::invalid_argument("--upstream-ca needs an https:// --upstream: " +
                                  settled.upstream.to_string() + " is plain HTTP");
    }
    settled.trust = read_upstream_ca(options.upstream_ca);
  }
  provider::load_tls_files(options.tls, options.server);
  return settled;
}

int run_proxy(ProxyOptions options) {
  ProxySettings settled;
  try {
    settled = settle(options);
  } catch (const std::exception& error) {
    std::cerr << "retryproof proxy: " << error.what() << '\n';
    return 2;
  }
  const auto& [upstream, limits, trust] = settled;
  provider::warn_if_exposed("proxy", options.server.host, options.core.control_token.has_value());

  const sigset_t stop_signals = provider::block_stop_signals();  // before any thread starts
  provider::raise_descriptor_limit(options.server);
  provider::LogSink log_sink(STDERR_FILENO);  // outlives every request that logs
  options.core.log = [&log_sink](const std::string& line) { log_sink.write(line); };
  try {
    const std::unique_ptr<TempDir> tls_files = provider::generate_tls(options.tls, options.server);
    ProxyServer server(options.core, options.server, upstream, limits, options.max_body_bytes,
                       trust);
    provider::print_first_lines(std::cout, server.base_url(), tls_files.get());
    log_sink.write("[proxy] forwarding to " + upstream.to_string() +
                   (!upstream.tls           ? ""
                    : trust.ca_file.empty() ? ", verified against the system's CAs"
                                            : ", verified against " + trust.ca_file.string()));
    log_sink.write(std::string("[proxy] stopping on ") +
                   provider::wait_for_stop_signal(stop_signals));
    server.stop();
  } catch (const std::exception& error) {
    log_sink.stop();
    std::cerr << "retryproof proxy: " << error.what() << '\n';
    return 1;
  }
  return 0;
}

// The faults as the proxy applies them: what the upstream sees, what the client gets.
std::string fault_footer() {
  std::string footer = "Faults a plan can name, and what each does in front of the upstream:\n";
  for (const ProxyFaultRow& row : proxy_fault_table()) {
    const std::string name = provider::spelling(provider::row_of(row.kind));
    footer += "  " + name + std::string(name.size() < 32 ? 32 - name.size() : 1, ' ') +
              std::string(row.effect) + "\n";
  }
  return footer;
}

// Where the upstream is, how it is trusted, what API it speaks and how long it may take.
void add_upstream_options(CLI::App& command, ProxyOptions& options) {
  command
      .add_option("--upstream", options.upstream,
                  "The API to forward the data plane to: http[s]://HOST[:PORT][/BASE-PATH]. An "
                  "https upstream's certificate and host name are verified (against the "
                  "system's CAs, or --upstream-ca); one that does not verify is a 502 "
                  "upstream_tls_error naming the reason")
      ->required();
  command.add_option(
      "--upstream-ca", options.upstream_ca,
      "Verify an https --upstream against the CA certificates in this PEM file alone, instead "
      "of the system's (a sandbox with a private CA, a `provider --tls`'s CA file)");
  command
      .add_option("--api", options.api,
                  "The upstream's API: a built-in shape (" + provider::api_shape_names() +
                      ") or a shape file (see docs/provider.md): which requests are creates "
                      "and lookups, where the key travels, how bodies are encoded")
      ->capture_default_str();
  command
      .add_option("--connect-timeout", options.connect_timeout,
                  "A connection to the upstream not made within this is a 504 upstream_timeout")
      ->capture_default_str();
  command
      .add_option("--upstream-timeout", options.upstream_timeout,
                  "An upstream answer not complete this long after the connection is a 504 "
                  "upstream_timeout")
      ->capture_default_str();
}

}  // namespace

void add_proxy_command(CLI::App& app, int& exit_code,
                       std::vector<provider::ControlEndpoint> endpoints) {
  auto options = std::make_shared<ProxyOptions>();
  options->core.control_endpoints = std::move(endpoints);
  CLI::App* command = app.add_subcommand(
      "proxy",
      "Run a fault-injecting reverse proxy in front of a real API: the provider's fault plan, "
      "chaos, control plane and journal, with faults placed relative to the upstream's commit "
      "(commit-then-drop forwards the create, reads the upstream's answer, and sends the client "
      "nothing). Prints its URL on the first line; stops cleanly on SIGINT or SIGTERM.");
  add_upstream_options(*command, *options);
  provider::add_listen_options(*command, options->server);
  provider::add_tls_options(*command, options->tls);
  command->add_flag("--enforce-keys", options->core.enforce_keys,
                    "Answer repeated Idempotency-Keys in the proxy (replay, 422, 409 in flight), "
                    "for an upstream that does not enforce them");
  command->add_option("--key-ttl", options->key_ttl,
                      "With --enforce-keys: forget keys older than this (24h)");
  command
      ->add_option("--plan", options->plan_file,
                   "Fault plan to install at start, in the body format of POST /_test/faults")
      ->check(CLI::ExistingFile);
  command
      ->add_option("--seed", options->core.seed,
                   "Seed for a brownout's draw (an outage whose rate is below 1): the same seed "
                   "fails the same requests, so a rehearsal replays; job ids are the upstream's")
      ->capture_default_str();
  provider::add_memory_options(*command, options->memory);
  provider::add_control_token_options(*command, options->control_tokens);
  provider::add_operation_field_option(*command, options->operation_field);
  command
      ->add_option("--max-body", options->max_body_bytes,
                   "Largest accepted request body in bytes; larger bodies get 413")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->footer(fault_footer());
  command->callback([options, &exit_code] { exit_code = run_proxy(*options); });
}

}  // namespace retryproof::proxy
