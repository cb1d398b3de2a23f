#include "provider/command_support.hpp"

#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "common/duration.hpp"
#include "common/json_text.hpp"
#include "provider/control_plane_guard.hpp"

namespace retryproof::provider {
namespace {

constexpr const char* kTokenVariable = "RETRYPROOF_CONTROL_TOKEN";

std::string read_token_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("--control-token-file " + path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r'))
    token.pop_back();
  return token;
}

}  // namespace

FaultPlan read_plan_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot be read");
  std::stringstream text;
  text << file.rdbuf();
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(path + ": not valid JSON: " + json_error_message(error));
  }
  try {
    return FaultPlan::from_json(body);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(path + ": " + error.what());
  }
}

void add_control_token_options(CLI::App& command, ControlTokenSources& sources) {
  command.add_option_function<std::string>(
      "--control-token", [&sources](const std::string& token) { sources.flag = token; },
      "Require 'Authorization: Bearer TOKEN' on every /_test/ call (visible in ps: prefer "
      "--control-token-file or the RETRYPROOF_CONTROL_TOKEN environment variable)");
  command.add_option("--control-token-file", sources.file,
                     "Read the control token from FILE (one line)");
}

void add_operation_field_option(CLI::App& command, std::string& field) {
  command.add_option("--operation-field", field,
                     "Record this payload field's value (orderId, or a JSON Pointer such as "
                     "/metadata/orderId) in each create's journal entry, so that traffic can be "
                     "judged by business operation: retryproof judge, GET /_test/verdicts");
}

std::optional<std::string> operation_field(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text.starts_with('/')) {
    try {
      (void)nlohmann::json::json_pointer(text);
    } catch (const nlohmann::json::exception&) {
      throw std::runtime_error("--operation-field " + text +
                               ": not a JSON Pointer; write a top-level field name (orderId) or "
                               "a pointer such as /metadata/orderId");
    }
  }
  return text;
}

std::optional<std::string> control_token(const ControlTokenSources& sources) {
  if (sources.flag && !sources.file.empty()) {
    throw std::runtime_error(
        "give the control token once: --control-token or --control-token-file");
  }
  std::string token;
  std::string source;
  if (sources.flag) {
    token = *sources.flag;
    source = "--control-token";
  } else if (!sources.file.empty()) {
    token = read_token_file(sources.file);
    source = "--control-token-file " + sources.file;
  } else if (const char* variable = std::getenv(kTokenVariable)) {
    token = variable;
    source = kTokenVariable;
  } else {
    return std::nullopt;
  }
  if (token.empty()) {
    throw std::runtime_error("the control token from " + source +
                             " is empty, which would leave /_test/ unprotected; give a non-empty "
                             "token, or none at all");
  }
  return token;
}

Millis positive_duration(const std::string& flag, const std::string& text) {
  const Millis duration = parse_duration(text);
  if (duration <= Millis(0)) throw std::runtime_error(flag + " must be longer than 0ms");
  return duration;
}

void add_listen_options(CLI::App& command, ServerOptions& server) {
  command
      .add_option("--host", server.host,
                  "Address to listen on; anything but loopback exposes the control plane")
      ->capture_default_str();
  command.add_option("--port", server.port, "TCP port; 0 picks a free one")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  command
      .add_option("--workers", server.workers,
                  "I/O threads; any number of connections share them, and a delayed request "
                  "holds none")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  command
      .add_option("--max-connections", server.max_connections,
                  "Connections served at once; beyond them a connection gets 503 "
                  "capacity_exhausted at once (a few more are kept for /_test/ calls)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
}

void warn_if_exposed(const std::string& command, const std::string& host, bool has_token) {
  if (is_loopback_host(host)) return;
  std::cerr << "retryproof " << command << ": warning: listening on " << host
            << " exposes the control plane (/_test/) to the network"
            << (has_token ? "; it requires the control token\n"
                          : "; set --control-token to protect it\n");
}

sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return signals;
}

const char* wait_for_stop_signal(const sigset_t& signals) {
  int received = 0;
  sigwait(&signals, &received);
  return received == SIGINT ? "SIGINT" : "SIGTERM";
}

void raise_descriptor_limit(const ServerOptions& server) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = server.max_connections + server.reserved_control_connections + 64;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace retryproof::provider
