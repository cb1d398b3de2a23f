#include "provider_command.hpp"

#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <memory>

#include "provider_server.hpp"

namespace retryproof::provider {
namespace {

struct ProviderOptions {
  ServerOptions server;
  ProviderConfig core;
};

int run_provider(ProviderOptions options) {
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

void add_provider_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ProviderOptions>();
  CLI::App* command = app.add_subcommand(
      "provider",
      "Run the misbehaving provider: an HTTP API that enforces idempotency keys and fails on "
      "command. Prints its URL on the first line, logs one line per request to standard error, "
      "and stops cleanly on SIGINT or SIGTERM.");
  command->add_option("--host", options->server.host, "Address to listen on")
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
  command->callback([options, &exit_code] { exit_code = run_provider(*options); });
}

}  // namespace retryproof::provider
