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

// cpp-httplib 0.11 listens with a backlog of 5, compiled into the library: a burst of
// clients then waits a second for SYN retransmission. Raises the backlog of this
// process's socket listening on `port` to the system's maximum. False if not found.
bool widen_listen_backlog(int port);

// The three ways a fault ends a connection under the library's feet. Each makes every
// later write by the library fail; the library still owns the descriptor and closes it.

// FIN, after nothing or after `partial_response` (written first, unframed).
void drop_connection(int fd, const std::string& partial_response = {});

// RST: the peer's next read fails with ECONNRESET.
void reset_connection(int fd);

}  // namespace retryproof::provider
