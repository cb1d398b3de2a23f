#include "scenarios/commands/output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace retryproof::scenarios {

std::optional<std::string> unwritable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status)) return "is a directory";
  if (fs::exists(status)) {
    if (access(path.c_str(), W_OK) != 0) return "is not writable";
    return std::nullopt;
  }
  const fs::path parent =
      fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (!fs::is_directory(parent, error))
    return "its directory " + parent.string() + " does not exist";
  if (access(parent.c_str(), W_OK | X_OK) != 0) {
    return "its directory " + parent.string() + " is not writable";
  }
  return std::nullopt;
}

}  // namespace retryproof::scenarios
