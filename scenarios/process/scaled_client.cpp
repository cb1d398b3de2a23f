#include "scenarios/process/scaled_client.hpp"

#include <cstdlib>
#include <stdexcept>

namespace retryproof::scenarios {

std::vector<std::string> time_scale_arguments(TimeScale scale) {
  if (scale.is_real_time()) return {};
  return {"--time-scale", std::to_string(scale.factor())};
}

std::optional<std::filesystem::path> find_libfaketime() {
  // Debian installs it under the multiarch directory; the others are where a build from
  // source (`make install`) or another distribution puts it.
  for (const char* candidate :
       {"/usr/lib/" RETRYPROOF_LIBRARY_ARCH "/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"}) {
    std::error_code ignored;
    if (std::filesystem::is_regular_file(candidate, ignored)) return candidate;
  }
  return std::nullopt;
}

std::map<std::string, std::string> faketime_environment(TimeScale scale) {
  if (scale.is_real_time()) return {};
  const auto library = find_libfaketime();
  if (!library) {
    throw std::runtime_error(
        "--time-scale " + std::to_string(scale.factor()) +
        " runs an external client under libfaketime, which is not installed: install the "
        "Debian package libfaketime (scripts/setup.sh does), or run without --time-scale");
  }
  std::string preload = library->string();
  if (const char* already = std::getenv("LD_PRELOAD"); already != nullptr && *already != 0) {
    preload += std::string(":") + already;
  }
  // "+0": no offset, the real time at the start; "xN": then N times as fast. Each process
  // counts from its own start, and only the rate matters to a client.
  return {{"LD_PRELOAD", preload}, {"FAKETIME", "+0 x" + std::to_string(scale.factor())}};
}

}  // namespace retryproof::scenarios
