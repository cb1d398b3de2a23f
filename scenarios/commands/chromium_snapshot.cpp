#include "scenarios/commands/chromium_snapshot.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <stdexcept>

#include "common/temp_dir.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::scenarios {
namespace {

// Headless, and nothing of a desktop browser's own traffic or state: every request it
// makes is the page's. --no-sandbox: Chromium refuses to start as root with its sandbox,
// and CI runners and containers run as root.
constexpr const char* kFlags[] = {
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
};

// Chromium's own start and teardown, beyond the page's budget.
constexpr std::chrono::seconds kStartAllowance{60};

std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t lines = 0; start > 0 && lines <= count; --start) {
    if (text[start - 1] == '\n') ++lines;
  }
  return text.substr(start);
}

}  // namespace

std::vector<std::string> chromium_arguments(const SnapshotRequest& request,
                                            const std::filesystem::path& profile) {
  std::vector<std::string> arguments(std::begin(kFlags), std::end(kFlags));
  arguments.push_back("--user-data-dir=" + profile.string());
  // Without it Chromium shoots as soon as the document has loaded, before the page's
  // scripts have read anything: virtual time runs the page's timers and waits for its fetches.
  arguments.push_back("--virtual-time-budget=" + std::to_string(request.virtual_time_budget_ms));
  arguments.push_back("--window-size=" + request.window_size);
  arguments.push_back("--screenshot=" + request.png.string());
  if (request.dump_dom) arguments.push_back("--dump-dom");
  arguments.push_back(request.url);
  return arguments;
}

void check_chromium(const std::filesystem::path& chromium) {
  if (access(chromium.c_str(), X_OK) != 0 || std::filesystem::is_directory(chromium)) {
    throw std::runtime_error(
        "no Chromium at " + chromium.string() +
        ": install Debian's (apt-get install chromium), or name another with --chromium PATH");
  }
}

std::string take_snapshot(const SnapshotRequest& request) {
  check_chromium(request.chromium);
  const TempDir profile("retryproof-ui-snapshot");
  std::vector<std::string> argv = {request.chromium.string()};
  for (std::string& argument : chromium_arguments(request, profile.path()))
    argv.push_back(std::move(argument));
  std::error_code ignored;
  std::filesystem::remove(request.png, ignored);  // an old screenshot must not pass for new
  ChildProcess chromium(argv);
  const auto deadline =
      std::chrono::milliseconds(request.virtual_time_budget_ms) * 4 + kStartAllowance;
  const auto status =
      chromium.wait(std::chrono::duration_cast<std::chrono::milliseconds>(deadline));
  if (!status) {
    chromium.send_signal(SIGKILL);
    throw std::runtime_error(
        request.chromium.string() + " did not finish within " +
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(deadline).count()) + " s");
  }
  if (!status->exited() || status->code != 0 || !std::filesystem::exists(request.png) ||
      std::filesystem::file_size(request.png) == 0) {
    throw std::runtime_error(request.chromium.string() + " wrote no screenshot to " +
                             request.png.string() + " (" + status->describe() +
                             "); its last words:\n" + last_lines(chromium.standard_error(), 5));
  }
  return chromium.standard_output();
}

}  // namespace retryproof::scenarios
