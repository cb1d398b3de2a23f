#include "provider/connection_socket.hpp"

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

using EndQuery = int (*)(int, sockaddr*, socklen_t*);

// Whether getsockname/getpeername of fd gives addr:port. Fails for files and pipes
// (ENOTSOCK), and for a listening socket's missing peer (ENOTCONN).
// An empty addr matches any address.
bool end_is(EndQuery query, int fd, const std::string& addr, int port) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  std::string found_addr;
  int found_port = -1;
  return query(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
         describe(address, length, found_addr, found_port) && found_port == port &&
         (addr.empty() || found_addr == addr);
}

bool has_peer(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  return getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
}

// The first open descriptor of this process that satisfies `matches`.
template <typename Predicate>
std::optional<int> find_socket(Predicate matches) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    const std::string name = entry.path().filename().string();
    int fd = -1;
    if (std::from_chars(name.data(), name.data() + name.size(), fd).ec != std::errc{}) continue;
    if (matches(fd)) return fd;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> find_connection_socket(const ConnectionEnds& ends) {
  // A live TCP connection is the only socket with this pair of ends, and it cannot be
  // closed while its request is being handled, so the match is unambiguous and stable.
  return find_socket([&](int fd) {
    return end_is(getsockname, fd, ends.local_addr, ends.local_port) &&
           end_is(getpeername, fd, ends.remote_addr, ends.remote_port);
  });
}

bool widen_listen_backlog(int port) {
  // Only one socket of a process can listen on a port (we set no SO_REUSEPORT).
  const auto fd = find_socket([&](int candidate) {
    return end_is(getsockname, candidate, "", port) && !has_peer(candidate);
  });
  // listen() on a socket that already listens only changes its backlog.
  return fd && ::listen(*fd, SOMAXCONN) == 0;
}

void drop_connection(int fd, const std::string& partial_response) {
  for (std::size_t sent = 0; sent < partial_response.size();) {
    const ssize_t n =
        ::send(fd, partial_response.data() + sent, partial_response.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the client left already: nothing more to cut short
    sent += static_cast<std::size_t>(n);
  }
  // shutdown, never close: the library closes the descriptor itself once the handler
  // returns, and a second close could hit a descriptor another thread has just opened.
  ::shutdown(fd, SHUT_RDWR);
}

void reset_connection(int fd) {
  // With a zero linger, connect(AF_UNSPEC) disconnects a TCP socket on Linux by sending
  // RST at once (tcp_disconnect), while the descriptor stays open for the library.
  const linger abort_at_once{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_at_once, sizeof(abort_at_once));
  sockaddr unspecified{};
  unspecified.sa_family = AF_UNSPEC;
  ::connect(fd, &unspecified, sizeof(unspecified));
}

}  // namespace retryproof::provider
