#include "proxy/tests/raw_upstream.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <stdexcept>

namespace retryproof::proxy::testing {

RawUpstream::RawUpstream(std::string reply, Then then) : reply_(std::move(reply)), then_(then) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::listen(listener_, 16) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0 ||
      ::pipe2(wake_, O_CLOEXEC) != 0) {
    throw std::runtime_error("the raw upstream cannot listen");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

RawUpstream::~RawUpstream() {
  const char byte = 0;
  [[maybe_unused]] const auto written = ::write(wake_[1], &byte, 1);
  thread_.join();
  for (const int fd : {listener_, wake_[0], wake_[1]})
    ::close(fd);
}

std::string RawUpstream::last_request() const {
  std::lock_guard lock(mutex_);
  return last_request_;
}

void RawUpstream::serve() {
  while (true) {
    std::array<pollfd, 2> ready{{{listener_, POLLIN, 0}, {wake_[0], POLLIN, 0}}};
    if (::poll(ready.data(), ready.size(), -1) < 0) continue;
    if (ready[1].revents != 0) return;
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++connections_;
    serve_one(fd);
    ::close(fd);
  }
}

void RawUpstream::serve_one(int fd) {
  // Reads until the head has arrived, then until the peer closes if told to; a write
  // from the destructor ends either wait.
  std::string received;
  const auto read_some = [&] {
    std::array<pollfd, 2> ready{{{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}}};
    if (::poll(ready.data(), ready.size(), -1) <= 0 || ready[1].revents != 0) return false;
    std::array<char, 4096> buffer{};
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) return false;
    received.append(buffer.data(), static_cast<std::size_t>(n));
    return true;
  };
  while (received.find("\r\n\r\n") == std::string::npos) {
    if (!read_some()) return;
  }
  {
    std::lock_guard lock(mutex_);
    last_request_ = received;
  }
  for (std::size_t sent = 0; sent < reply_.size();) {
    const ssize_t n = ::send(fd, reply_.data() + sent, reply_.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
  if (then_ == Then::wait_for_peer) {
    while (read_some()) {
    }
  }
}

}  // namespace retryproof::proxy::testing
