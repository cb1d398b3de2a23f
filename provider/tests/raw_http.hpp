// Byte-level HTTP for tests: what exactly reached the socket, and how the connection ended.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace retryproof::provider::testing {

enum class ConnectionEnd { eof, reset, timeout };

struct RawExchange {
  std::string received;  // every byte the server sent
  ConnectionEnd end = ConnectionEnd::timeout;
};

enum class ReadUntil {
  closed,    // the server closes the connection
  response,  // one complete response (headers and Content-Length bytes) has arrived
};

// One TCP connection to 127.0.0.1:port that a test writes and reads byte by byte, for
// clients that misbehave: trickle, pipeline, hold a connection open, never read.
class RawConnection {
 public:
  explicit RawConnection(int port);  // throws std::runtime_error when it cannot connect
  ~RawConnection();
  RawConnection(RawConnection&& other) noexcept;
  RawConnection& operator=(RawConnection&&) = delete;
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // Writes all of `bytes`; false if the server closed or reset the connection first.
  bool send(std::string_view bytes);
  // The next complete response, or nothing if the deadline passes or the server closes
  // first. Bytes after it stay buffered for the next call (pipelined responses).
  std::optional<std::string> read_response(std::chrono::milliseconds deadline);
  // Everything until the server closes the connection (after what was buffered).
  RawExchange read_until_closed(std::chrono::milliseconds deadline);
  int fd() const { return fd_; }

 private:
  // Reads once, waiting at most until `give_up_at`. False at EOF, reset, or the deadline.
  bool read_more(std::chrono::steady_clock::time_point give_up_at, ConnectionEnd& end);

  int fd_ = -1;
  std::string buffered_;
};

// The length of the first complete response in `received` (head, and a Content-Length
// or chunked body), or nothing while it is incomplete.
std::optional<std::size_t> complete_response_size(std::string_view received);

// A response cut short: the body bytes that arrived after its head, and the Content-Length
// its head promised. Nothing when there is no whole head or no Content-Length in it.
struct CutResponse {
  std::string body;
  std::size_t promised = 0;
};
std::optional<CutResponse> cut_response(std::string_view received);

// Connects to 127.0.0.1:port, writes `request` and reads until `until` or `deadline`.
RawExchange raw_exchange(int port, const std::string& request, ReadUntil until = ReadUntil::closed,
                         std::chrono::milliseconds deadline = std::chrono::seconds(5));

// A complete HTTP/1.1 request with Connection: close. An empty key sends no header.
std::string raw_post_jobs(const std::string& key, const std::string& body);

// The same, kept alive, for pipelining and connection reuse.
std::string raw_post_jobs_keep_alive(const std::string& key, const std::string& body);

// Adds to `clients` `count` connections that each created a job ("idle-N") and now sit
// idle, kept alive, and `count` that sent half a request head: what a provider being
// stopped must not wait for. False if an idle one got no answer.
bool open_idle_and_half_sent(int port, int count, std::vector<RawConnection>& clients);

// A control-plane request as a script sends it: the provider's own loopback Host. With an
// `origin`, as a web page's script sends it: with that Origin too.
std::string raw_control_request(int port, const std::string& method, const std::string& path,
                                const std::string& body = {}, const std::string& origin = {});

// The status code of a raw response ("HTTP/1.1 201 Created..." is 201), or 0.
int status_of(std::string_view response);
// The body of a raw response: everything after the head, or a chunked body's data joined.
std::string body_of(std::string_view response);

}  // namespace retryproof::provider::testing
