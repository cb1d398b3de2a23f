#include "provider/log_destination.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace retryproof::provider {

LogDestination::LogDestination(const std::string& spec) {
  if (spec == "none") return;
  if (spec == "stderr") {
    fd_ = STDERR_FILENO;
    return;
  }
  fd_ = ::open(spec.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error("--log " + spec + ": cannot be opened for appending: " +
                             std::strerror(errno) + " (give none, stderr or a file path)");
  }
  owned_ = true;
}

LogDestination::~LogDestination() {
  if (owned_) ::close(fd_);
}

}  // namespace retryproof::provider
