// One client connection of HttpServer: reads requests one after another (so pipelined
// requests are answered in order), under the server's limits and deadlines, hands each
// to the RequestHandler and delivers its Decision: a response, a chunked stream, or a
// fault (drop, reset, truncation) carried out on the socket it owns. Every member runs
// on the connection's strand. A template over its stream: a TCP socket for plain HTTP (the
// hot path, no TLS code in it), or an OpenSSL stream over one for HTTPS, which adds the
// handshake, a plain-HTTP client's refusal and close_notify; both are instantiated in
// http_connection.cpp. Internal to the server: this header brings in Asio.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "provider/connection_budget.hpp"
#include "provider/http_server.hpp"

namespace retryproof::provider {

struct UnreadableRequestLine;

// A connection's executor: its strand, as a concrete type. Held type-erased (Asio's
// any_io_executor, the default of tcp::socket), every operation copied it into a heap
// allocation, since a strand does not fit the erasure's small buffer.
using ConnectionExecutor = boost::asio::strand<boost::asio::io_context::executor_type>;
using ConnectionSocket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, ConnectionExecutor>;
using ConnectionTimer =
    boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                      boost::asio::wait_traits<std::chrono::steady_clock>,
                                      ConnectionExecutor>;

// HTTPS: TLS over the same socket.
using TlsStream = boost::asio::ssl::stream<ConnectionSocket>;

// What the server does to any connection, plain or TLS: only at stop, never per request.
class Connection {
 public:
  virtual ~Connection() = default;
  // From any thread: end as soon as possible. A held request ends its wait and is
  // answered; a response being written is finished; anything else is closed.
  virtual void stop() = 0;
  // Only once no I/O thread runs: closes the socket at once.
  virtual void close_now() = 0;
};

// The connections alive, so that stop() can reach each one. Thread-safe.
class ConnectionRegistry {
 public:
  std::uint64_t add(std::weak_ptr<Connection> connection);
  void remove(std::uint64_t id);
  std::vector<std::shared_ptr<Connection>> live() const;

 private:
  mutable std::mutex mutex_;
  std::uint64_t next_id_ = 0;
  std::unordered_map<std::uint64_t, std::weak_ptr<Connection>> connections_;
};

// What the connections of one server share; it outlives them all.
struct ConnectionContext {
  RequestHandler& handler;
  const HttpServerSettings& settings;
  ConnectionRegistry& registry;
  const std::atomic<bool>& stopping;
  boost::asio::ssl::context* tls = nullptr;  // set when the server speaks HTTPS
};

template <class Stream>
class HttpConnection final : public Connection,
                             public std::enable_shared_from_this<HttpConnection<Stream>> {
 public:
  // `listener`: the extra listener's port it was accepted on, or 0 (HttpRequest::listener).
  HttpConnection(ConnectionSocket socket, ConnectionContext& context, ConnectionBudget::Slot slot,
                 int listener = 0);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Serves requests; or, if the slot says refused, answers 503 at once and closes. Over
  // TLS, after the handshake.
  void start();
  void stop() override;
  void close_now() override;

 private:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;
  // After the last response (or a refusal in plain text over TLS), how long a client that
  // keeps sending is read, its bytes discarded, before the close: closing with unread bytes
  // sends RST, which can destroy the response before the client reads it.
  static constexpr Millis kLingerTimeout{1000};
  enum class Phase { handshake, idle, head, body, handling, holding, writing, closing, closed };

  ConnectionSocket& tcp();  // the socket under the stream: options, shutdown, close
  void begin();
  // TLS only: the first byte tells a TLS client from a plain HTTP one, which is refused in
  // plain text; then the handshake, under the header deadline.
  void await_first_byte();
  void handshake();
  void refuse_plain_http();
  // FIN, then reads and discards until the client closes or the deadline armed passes.
  void close_tcp_gracefully();

  void await_request();
  void scan_buffered();
  void read_some();
  void acknowledge_now();
  void on_head(std::size_t head_size);
  void read_body();
  void dispatch();
  void dispatch_malformed(const UnreadableRequestLine& line);
  // Stamps the request with its connection (HttpRequest::client_port, new_connection).
  void stamp(HttpRequest& request);
  void on_decision();
  void on_hold_end();
  void deliver();
  void respond(bool closes);
  void send_next_chunk(bool closes);
  void refuse(int status, std::string_view code, std::string_view detail);
  // Tells the handler what of a refused request was read (RequestHandler::refused).
  void report_refusal(int status);
  void write(std::string bytes, std::function<void()> then);
  void after_response(bool closes);
  void close_gracefully();
  void drain();
  void close_socket();
  void on_stop();

  // The connection has one deadline at a time; re-arming it only moves deadline_at_. The
  // timer waits for the earliest deadline set since it last fired and, when a later one
  // replaced it meanwhile, waits again: a request costs no timer cancellation.
  void arm_deadline(Millis timeout);
  void disarm_deadline();
  void wait_for_deadline(std::chrono::steady_clock::time_point at);
  void on_deadline();
  // Feeds the body bytes already read (usually all of it) to the parser, so that a request
  // that came whole is served without another read. Continues with dispatch() when the
  // body is complete; false when more must be read.
  bool parse_buffered_body();
  void on_body_error(const boost::system::error_code& error);
  bool closes_after_response() const;
  // Puts the handler's answer in decision_ and continues with `then`, on this
  // connection's strand (at once when the handler answers at once); a 500 if the handler
  // throws: a bug there must not end the thread.
  void ask(const std::function<void(RequestHandler::Answer)>& question,
           void (HttpConnection::*then)());

  Stream stream_;
  ConnectionContext& context_;
  ConnectionBudget::Slot slot_;
  int listener_;
  int client_port_ = 0;          // the peer's port, read once at the start
  bool read_a_request_ = false;  // a request was handed on: the next is not the first
  std::uint64_t registry_id_ = 0;
  ConnectionTimer deadline_;
  ConnectionTimer hold_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  Phase phase_ = Phase::idle;
  std::chrono::steady_clock::time_point deadline_at_ = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point timer_at_;  // when the pending wait ends
  bool timer_waiting_ = false;
  std::uint64_t deadline_generation_ = 0;  // of the pending wait; older ones are stale
  bool deadline_passed_ = false;
  bool stopping_ = false;
  // About the request being served.
  bool keep_alive_ = false;
  bool head_request_ = false;
  bool http10_ = false;
  Decision decision_;
  std::string out_;          // the bytes being written
  std::size_t drained_ = 0;  // bytes read and discarded while closing (into buffer_)
  bool tls_up_ = false;      // the handshake completed: a graceful close sends close_notify
  // The journal entry whose answer was delivered last on this connection, until the next
  // request: a close_notify that follows it is journaled as its.
  std::uint64_t answered_seq_ = 0;
  std::array<char, 1> first_byte_{};
};

extern template class HttpConnection<ConnectionSocket>;
extern template class HttpConnection<TlsStream>;

}  // namespace retryproof::provider
