// cpp-httplib 0.11 hands a request handler no socket. Faults that must act on the
// connection itself (drop it without a byte) find it here.
#pragma once

#include <optional>
#include <string>

namespace retryproof::provider {

struct ConnectionEnds {
  std::string local_addr;
  int local_port = -1;
  std::string remote_addr;
  int remote_port = -1;
};

// The file descriptor of this process's TCP socket whose two ends are `ends`, if any.
std::optional<int> find_connection_socket(const ConnectionEnds& ends);

// Sends FIN on the connection without writing anything, and makes every later write by
// the HTTP library fail. The library still owns the descriptor and closes it as usual.
void drop_connection(int fd);

}  // namespace retryproof::provider
