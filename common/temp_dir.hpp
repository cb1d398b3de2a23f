// A fresh directory under the system's temporary directory, removed with everything in it
// when the object goes: a scenario's client state, a test's files.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace retryproof {

class TempDir {
 public:
  // Throws std::runtime_error when the directory cannot be made.
  explicit TempDir(std::string_view prefix = "retryproof");
  // Under `parent` instead.
  TempDir(std::string_view prefix, const std::filesystem::path& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `text` to `name` under the directory (making its parents) and returns the path.
  std::filesystem::path write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

}  // namespace retryproof
