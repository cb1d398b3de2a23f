#include "connection_socket.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <array>
#include <charconv>
#include <filesystem>

namespace retryproof::provider {
namespace {

// The numeric address and port of one end, in the form cpp-httplib reports them.
bool describe(const sockaddr_storage& address, socklen_t length, std::string& host, int& port) {
  std::array<char, NI_MAXHOST> host_text{};
  std::array<char, NI_MAXSERV> port_text{};
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host_text.data(),
                  host_text.size(), port_text.data(), port_text.size(),
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return false;
  }
  host = host_text.data();
  const std::string_view digits(port_text.data());
  return std::from_chars(digits.data(), digits.data() + digits.size(), port).ec == std::errc{};
}

bool has_ends(int fd, const ConnectionEnds& ends) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  std::string host;
  int port = -1;
  // getsockname fails with ENOTSOCK for files and pipes, which rules them out cheaply.
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      !describe(address, length, host, port) || port != ends.local_port ||
      host != ends.local_addr) {
    return false;
  }
  length = sizeof(address);
  // The listening socket has the same local end but no peer.
  return getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
         describe(address, length, host, port) && port == ends.remote_port &&
         host == ends.remote_addr;
}

}  // namespace

std::optional<int> find_connection_socket(const ConnectionEnds& ends) {
  // A live TCP connection is the only socket with this pair of ends, and it cannot be
  // closed while its request is being handled, so the match is unambiguous and stable.
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    const std::string name = entry.path().filename().string();
    int fd = -1;
    if (std::from_chars(name.data(), name.data() + name.size(), fd).ec != std::errc{}) continue;
    if (has_ends(fd, ends)) return fd;
  }
  return std::nullopt;
}

void drop_connection(int fd) {
  // shutdown, never close: the library closes the descriptor itself once the handler
  // returns, and a second close could hit a descriptor another thread has just opened.
  ::shutdown(fd, SHUT_RDWR);
}

}  // namespace retryproof::provider
