// Where `retryproof provider --log` sends its per-request log: nowhere, standard error
// (the default), or a file, appended to so that restarts keep what came before.
#pragma once

#include <string>

namespace retryproof::provider {

class LogDestination {
 public:
  // "none", "stderr", or a file path (./none is a file named none). Throws
  // std::runtime_error naming the file when it cannot be opened for appending.
  explicit LogDestination(const std::string& spec);
  ~LogDestination();  // closes the file, if it opened one
  LogDestination(const LogDestination&) = delete;
  LogDestination& operator=(const LogDestination&) = delete;

  // The descriptor to write to; -1 for none.
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  bool owned_ = false;
};

}  // namespace retryproof::provider
