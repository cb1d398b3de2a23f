#include "common/invariant.hpp"

#include <iostream>
#include <mutex>

namespace retryproof {

std::string internal_error_text(std::string_view what, const std::source_location& where) {
  std::string file = where.file_name();
  // From the project's root: the same in every build directory.
  for (const char* root : {"/common/", "/provider/", "/proxy/", "/scenarios/",
                           "/client_under_test/", "/deliver/", "/embed/", "/ui/"}) {
    if (const auto at = file.rfind(root); at != std::string::npos) {
      file = file.substr(at + 1);
      break;
    }
  }
  return "internal error: " + std::string(what) + " (" + file + ":" + std::to_string(where.line()) +
         "); this is a bug in retryproof: please report it with the command that ran";
}

namespace {

std::mutex recorded_mutex;
std::optional<std::string> recorded;

}  // namespace

void record_internal_error(const InternalError& error) {
  std::lock_guard lock(recorded_mutex);
  if (recorded) return;
  recorded = error.what();
  std::cerr << "retryproof: " << error.what() << std::endl;
}

std::optional<std::string> recorded_internal_error() {
  std::lock_guard lock(recorded_mutex);
  return recorded;
}

void throw_if_internal_error() {
  if (std::optional<std::string> what = recorded_internal_error()) throw InternalError(*what);
}

}  // namespace retryproof
