#include "provider/tests/raw_http.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>

namespace retryproof::provider::testing {
namespace {

class Socket {
 public:
  Socket() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (fd_ < 0) throw std::runtime_error("socket() failed");
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

bool has_complete_response(const std::string& received) {
  const auto header_end = received.find("\r\n\r\n");
  if (header_end == std::string::npos) return false;
  const auto length_at = received.find("Content-Length: ");
  if (length_at == std::string::npos || length_at > header_end) return true;
  const auto length = std::stoul(received.substr(length_at + 16));
  return received.size() >= header_end + 4 + length;
}

}  // namespace

RawExchange raw_exchange(int port, const std::string& request, ReadUntil until,
                         std::chrono::milliseconds deadline) {
  Socket socket;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    throw std::runtime_error("connect() failed");
  }
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n =
        ::send(socket.fd(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early (a body over the limit): read what it said
    sent += static_cast<std::size_t>(n);
  }

  RawExchange exchange;
  const auto give_up_at = std::chrono::steady_clock::now() + deadline;
  std::array<char, 4096> buffer{};
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        give_up_at - std::chrono::steady_clock::now());
    if (left.count() <= 0) return exchange;  // timeout
    pollfd readable{socket.fd(), POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = ::recv(socket.fd(), buffer.data(), buffer.size(), 0);
    if (n > 0) {
      exchange.received.append(buffer.data(), static_cast<std::size_t>(n));
      if (until == ReadUntil::response && has_complete_response(exchange.received)) {
        return exchange;
      }
    } else {
      exchange.end = n == 0                ? ConnectionEnd::eof
                     : errno == ECONNRESET ? ConnectionEnd::reset
                                           : ConnectionEnd::timeout;
      return exchange;
    }
  }
}

std::string raw_post_jobs(const std::string& key, const std::string& body) {
  std::string request = "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!key.empty()) request += "Idempotency-Key: " + key + "\r\n";
  request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
             "\r\n\r\n" + body;
  return request;
}

}  // namespace retryproof::provider::testing
