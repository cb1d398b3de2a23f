// How a connection ends, and the one deadline it has at a time: a refusal (answered by the
// server itself, and reported to the handler for its journal), a graceful close (over TLS
// a close_notify first, then FIN) that reads and discards what the client still sends, so
// that unread bytes do not turn the close into an RST that destroys the response; and the
// timer behind every deadline. The rest of HttpConnection is in http_connection.cpp.
#include <algorithm>
#include <boost/asio/post.hpp>

#include "common/duration.hpp"
#include "provider/http_connection.hpp"
#include "provider/request_target.hpp"

namespace retryproof::provider {
namespace {

namespace net = boost::asio;
using boost::system::error_code;

// How much a client that keeps sending after the last response is read, at most, before
// the close (HttpConnection::kLingerTimeout says how long).
constexpr std::size_t kLingerBytes = 1024 * 1024;

}  // namespace

template <class Stream>
void HttpConnection<Stream>::close_gracefully() {
  if (stopping_) return close_socket();
  phase_ = Phase::closing;
  arm_deadline(kLingerTimeout);
  if constexpr (kTls) {
    if (tls_up_) {
      // close_notify first: the client learns that the stream ended where the server
      // meant it to (a drop, a truncation, the end of a response read until close), not
      // that it was cut. OpenSSL then reads, discarding, until the client's close_notify
      // or its FIN; the FIN follows, within the same linger.
      tls_up_ = false;
      if (answered_seq_ != 0) context_.handler.close_notify_sent(answered_seq_);
      stream_.async_shutdown([self = this->shared_from_this()](error_code) {
        if (self->deadline_passed_ || self->phase_ == Phase::closed) return self->close_socket();
        self->close_tcp_gracefully();
      });
      return;
    }
  }
  close_tcp_gracefully();
}

template <class Stream>
void HttpConnection<Stream>::close_tcp_gracefully() {
  phase_ = Phase::closing;
  error_code ignored;
  tcp().shutdown(net::socket_base::shutdown_send, ignored);  // FIN
  drained_ = 0;
  drain();
}

template <class Stream>
void HttpConnection<Stream>::drain() {
  // Into the read buffer, which nothing reads any more: a connection keeps no second buffer
  // (4 KiB each, resident in every idle connection) for the few that linger.
  buffer_.clear();
  const std::size_t room = std::min<std::size_t>(4096, buffer_.max_size());
  tcp().async_read_some(buffer_.prepare(room),
                        [self = this->shared_from_this()](error_code error, std::size_t bytes) {
                          self->drained_ += bytes;
                          if (error || self->deadline_passed_ || self->drained_ > kLingerBytes) {
                            return self->close_socket();
                          }
                          self->drain();
                        });
}

template <class Stream>
void HttpConnection<Stream>::close_socket() {
  disarm_deadline();
  deadline_.cancel();  // the pending wait would keep this connection alive until it ends
  hold_.cancel();
  error_code ignored;
  tcp().close(ignored);
  phase_ = Phase::closed;
}

template <class Stream>
void HttpConnection<Stream>::arm_deadline(Millis timeout) {
  deadline_passed_ = false;
  deadline_at_ = std::chrono::steady_clock::now() + timeout;
  // A wait that ends sooner finds the later deadline and waits again; only a sooner
  // deadline needs a new wait.
  if (!timer_waiting_ || deadline_at_ < timer_at_) wait_for_deadline(deadline_at_);
}

template <class Stream>
void HttpConnection<Stream>::disarm_deadline() {
  deadline_passed_ = false;
  deadline_at_ = std::chrono::steady_clock::time_point::max();  // the pending wait finds none
}

template <class Stream>
void HttpConnection<Stream>::wait_for_deadline(std::chrono::steady_clock::time_point at) {
  timer_at_ = at;
  timer_waiting_ = true;
  deadline_.expires_at(at);  // a pending wait ends with operation_aborted, and is stale
  deadline_.async_wait(
      [self = this->shared_from_this(), generation = ++deadline_generation_](error_code error) {
        if (generation != self->deadline_generation_) return;  // a sooner wait replaced it
        self->timer_waiting_ = false;
        if (error || self->phase_ == Phase::closed) return;  // closed meanwhile
        if (self->deadline_at_ == std::chrono::steady_clock::time_point::max()) return;
        if (std::chrono::steady_clock::now() < self->deadline_at_) {
          return self->wait_for_deadline(self->deadline_at_);  // moved later meanwhile
        }
        self->deadline_passed_ = true;
        error_code ignored;
        self->tcp().cancel(ignored);  // the pending operation ends, and sees the flag
      });
}

template <class Stream>
void HttpConnection<Stream>::on_deadline() {
  const ServerOptions& options = context_.settings.options;
  switch (phase_) {
    case Phase::head:
      return refuse(408, "request_timeout",
                    "the request head did not arrive within " +
                        format_duration(options.header_timeout) + " (--header-timeout)");
    case Phase::body:
      return refuse(408, "request_timeout",
                    "the request body did not arrive within " +
                        format_duration(options.body_timeout) + " (--body-timeout)");
    default:  // idle for too long, or a close that lingered long enough
      return close_socket();
  }
}

template <class Stream>
void HttpConnection<Stream>::report_refusal(int status) {
  RefusedRequest refused{.status = status,
                         .listener = listener_,
                         .client_port = client_port_,
                         .new_connection = !read_a_request_};
  read_a_request_ = true;
  // The request line is parsed before the fields: a body over the limit still has one.
  if (parser_ && !parser_->get().method_string().empty()) {
    const auto& head = parser_->get();
    refused.method = std::string(head.method_string());
    refused.path = split_target({head.target().data(), head.target().size()}).path;
  }
  if (refused.path.starts_with(context_.settings.control_prefix)) return;
  context_.handler.refused(refused);
}

template <class Stream>
void HttpConnection<Stream>::refuse(int status, std::string_view code, std::string_view detail) {
  report_refusal(status);
  // Whatever else the client sent is not read as requests: the connection closes.
  keep_alive_ = false;
  head_request_ = false;
  buffer_.clear();
  decision_ = context_.handler.server_error(status, code, detail);
  respond(true);
}

// The members defined here, for the two streams http_connection.cpp instantiates the rest for.
template void HttpConnection<ConnectionSocket>::close_gracefully();
template void HttpConnection<ConnectionSocket>::close_tcp_gracefully();
template void HttpConnection<ConnectionSocket>::drain();
template void HttpConnection<ConnectionSocket>::close_socket();
template void HttpConnection<ConnectionSocket>::arm_deadline(Millis);
template void HttpConnection<ConnectionSocket>::disarm_deadline();
template void HttpConnection<ConnectionSocket>::wait_for_deadline(
    std::chrono::steady_clock::time_point);
template void HttpConnection<ConnectionSocket>::on_deadline();
template void HttpConnection<ConnectionSocket>::report_refusal(int);
template void HttpConnection<ConnectionSocket>::refuse(int, std::string_view, std::string_view);
template void HttpConnection<TlsStream>::close_gracefully();
template void HttpConnection<TlsStream>::close_tcp_gracefully();
template void HttpConnection<TlsStream>::drain();
template void HttpConnection<TlsStream>::close_socket();
template void HttpConnection<TlsStream>::arm_deadline(Millis);
template void HttpConnection<TlsStream>::disarm_deadline();
template void HttpConnection<TlsStream>::wait_for_deadline(std::chrono::steady_clock::time_point);
template void HttpConnection<TlsStream>::on_deadline();
template void HttpConnection<TlsStream>::report_refusal(int);
template void HttpConnection<TlsStream>::refuse(int, std::string_view, std::string_view);

}  // namespace retryproof::provider
