#include "scenarios/commands/ui_snapshot_command.hpp"

#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <stdexcept>

#include "scenarios/commands/chromium_snapshot.hpp"
#include "scenarios/commands/output_file.hpp"
#include "scenarios/commands/page_text.hpp"
#include "scenarios/commands/token_relay.hpp"

namespace retryproof::scenarios {
namespace {

constexpr const char* kTokenVariable = "RETRYPROOF_CONTROL_TOKEN";
constexpr const char* kPage = "/_test/ui";

struct SnapshotOptions {
  std::string url;
  std::string token_file;
  std::string png;
  std::string dump_text;
  std::string chromium = kDebianChromium;
  int virtual_time_budget_ms = 5000;
  std::string window_size = "1280,2000";
};

// A mistake in what was asked: exit 2, as a usage error.
struct UsageProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "http://127.0.0.1:4040", "…:4040/" and "…:4040/_test/ui" all name the same server.
std::string server_base(std::string url) {
  if (url.ends_with("/")) url.pop_back();
  if (url.ends_with(kPage)) url.resize(url.size() - std::string_view(kPage).size());
  static const std::regex kBase(R"(https?://[^/?#\s]+)");
  if (!std::regex_match(url, kBase)) {
    throw UsageProblem("URL " + url +
                       ": expected a server's address, such as http://127.0.0.1:4040 (or its "
                       "page, http://127.0.0.1:4040/_test/ui)");
  }
  return url;
}

// The first line of the file: the token, as --control-token-file reads it.
std::optional<std::string> read_token(const std::string& file) {
  if (file.empty()) {
    if (const char* variable = std::getenv(kTokenVariable); variable && *variable)
      return std::string(variable);
    return std::nullopt;
  }
  std::ifstream in(file);
  if (!in) {
    throw UsageProblem("--token-file " + file +
                       ": cannot be read; write the server's control token on its first line");
  }
  std::string token;
  std::getline(in, token);
  if (!token.empty() && token.back() == '\r') token.pop_back();
  if (token.empty()) {
    throw UsageProblem("--token-file " + file +
                       " is empty: write the server's control token on its first line");
  }
  return token;
}

void check_outputs(const SnapshotOptions& options) {
  if (!std::regex_match(options.window_size, std::regex(R"([1-9][0-9]{1,4},[1-9][0-9]{1,4})")))
    throw UsageProblem("--window-size " + options.window_size +
                       ": expected WIDTH,HEIGHT such as 1280,2000");
  for (const std::string* path : {&options.png, &options.dump_text}) {
    if (path->empty()) continue;
    if (const auto why = unwritable(*path)) throw UsageProblem(*path + ": " + *why);
  }
}

// The server is there and serves a live page: else there is nothing to shoot.
void check_page(const std::string& base) {
  httplib::Client client(base);
  client.set_connection_timeout(5);
  client.set_read_timeout(30);
  const auto page = client.Get(kPage);
  if (!page) {
    throw std::runtime_error(base + " is unreachable (" + httplib::to_string(page.error()) +
                             "): is a retryproof provider or proxy listening there?");
  }
  if (page->status != 200) {
    throw std::runtime_error(base + kPage + " answered " + std::to_string(page->status) +
                             ": not the live page of a retryproof provider or proxy");
  }
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error(path + ": cannot be written");
}

int snapshot(const SnapshotOptions& options) {
  std::string base;
  std::optional<std::string> token;
  try {
    base = server_base(options.url);
    token = read_token(options.token_file);
    check_outputs(options);
  } catch (const UsageProblem& problem) {
    std::cerr << "retryproof ui-snapshot: " << problem.what() << '\n';
    return 2;
  }
  try {
    check_chromium(options.chromium);
    check_page(base);
    const TokenRelay relay(base, token);
    const std::string dom = take_snapshot({.chromium = options.chromium,
                                           .url = relay.base_url() + kPage,
                                           .png = std::filesystem::absolute(options.png),
                                           .dump_dom = !options.dump_text.empty(),
                                           .virtual_time_budget_ms = options.virtual_time_budget_ms,
                                           .window_size = options.window_size});
    if (!options.dump_text.empty()) write_text(options.dump_text, page_text(dom));
    const RelayTally tally = relay.tally();
    if (tally.refused > 0 || tally.unreachable > 0) {
      std::cerr << "retryproof ui-snapshot: the page could not read " << base << ": "
                << tally.first_problem
                << (tally.refused > 0 && !token ? " (give the token with --token-file FILE)" : "")
                << "; " << options.png << " shows what it could not read as unknown\n";
      return 1;
    }
    std::cout << "wrote " << options.png
              << (options.dump_text.empty() ? "" : " and " + options.dump_text) << ": " << base
              << kPage << '\n';
    return 0;
  } catch (const std::exception& problem) {
    std::cerr << "retryproof ui-snapshot: " << problem.what() << '\n';
    return 1;
  }
}

}  // namespace

void add_ui_snapshot_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SnapshotOptions>();
  CLI::App* command = app.add_subcommand(
      "ui-snapshot",
      "Save the live page (GET /_test/ui) of a provider or proxy as headless Chromium draws "
      "it, for CI: the control token goes from a file to a loopback relay that adds it to "
      "each request, never into a URL, an argument list or a log. Exit 0 when the page read "
      "its server; 1 when it could not (token missing or wrong, server unreachable: the "
      "picture then shows \"unknown\"), or Chromium failed; 2 on a usage error");
  command->add_option("URL", options->url, "The server, http://HOST:PORT (or its page, …/_test/ui)")
      ->required();
  command->add_option("--png", options->png, "Write the screenshot to FILE (PNG)")->required();
  command->add_option("--token-file", options->token_file,
                      "Read the control token from FILE's first line (else from the "
                      "RETRYPROOF_CONTROL_TOKEN environment variable, else none)");
  command->add_option("--dump-text", options->dump_text,
                      "Also write the page's words to FILE, one block a line, to grep");
  command->add_option("--chromium", options->chromium, "The Chromium to run")
      ->capture_default_str();
  command
      ->add_option("--virtual-time-budget", options->virtual_time_budget_ms,
                   "Milliseconds of virtual time the page's scripts run before the shot: without "
                   "it the shot is taken before the page has read anything")
      ->check(CLI::Range(500, 600000))
      ->capture_default_str();
  command->add_option("--window-size", options->window_size, "WIDTH,HEIGHT of the shot")
      ->capture_default_str();
  command->callback([options, &exit_code] { exit_code = snapshot(*options); });
}

}  // namespace retryproof::scenarios
