// One headless Chromium run that loads a page, lets its scripts run for a budget of virtual
// time, and writes a screenshot and, if asked, the DOM as it then stands. A fresh profile
// each time (--user-data-dir in a temporary directory), no network of its own (no updates,
// no sync, no QUIC), nothing kept.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace retryproof::scenarios {

inline constexpr const char* kDebianChromium = "/usr/bin/chromium";

struct SnapshotRequest {
  std::filesystem::path chromium = kDebianChromium;
  std::string url;
  std::filesystem::path png;  // absolute
  bool dump_dom = false;
  int virtual_time_budget_ms = 5000;
  std::string window_size = "1280,2000";
};

// The arguments of the run, after the program: the flags below, then the URL.
std::vector<std::string> chromium_arguments(const SnapshotRequest& request,
                                            const std::filesystem::path& profile);

// Throws std::runtime_error with the fix when `chromium` is not a program that can be run.
void check_chromium(const std::filesystem::path& chromium);

// Runs Chromium; returns the DOM (empty unless dump_dom). Throws std::runtime_error with
// what to fix when Chromium is missing, fails, times out or writes no screenshot.
std::string take_snapshot(const SnapshotRequest& request);

}  // namespace retryproof::scenarios
