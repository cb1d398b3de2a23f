#include "provider/http_connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/read.hpp>

#include "common/duration.hpp"
#include "common/invariant.hpp"
#include "provider/request_head.hpp"
#include "provider/request_target.hpp"
#include "provider/response_bytes.hpp"

namespace retryproof::provider {
namespace {

namespace net = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

// A connection on a reserved seat must start its request sooner: idle, it would keep
// the seat from the control plane it is reserved for.
constexpr Millis kReservedIdleTimeout{1000};
constexpr std::size_t kReadChunk = 4096;
// Room for pipelined bytes beyond the largest head the limits allow.
constexpr std::size_t kBufferSlack = 16 * 1024;

HttpRequest to_http_request(http::request<http::string_body>&& message, bool tls) {
  const std::string_view raw_target(message.target().data(), message.target().size());
  RequestTarget target = split_target(raw_target);
  HttpRequest request{
      std::string(message.method_string()), std::move(target.path), {}, std::move(message.body())};
  request.query = std::move(target.query);
  request.target = raw_target;
  request.tls = tls;
  for (const auto& field : message)
    request.headers.emplace(std::string(field.name_string()), std::string(field.value()));
  return request;
}

// What a parse error means to the client that sent the request.
std::string describe_parse_error(const error_code& error) {
  if (error == http::error::bad_content_length) {
    return "Content-Length must be one non-negative decimal number (or a list of equal ones), "
           "and cannot come with Transfer-Encoding: chunked";
  }
  if (error == http::error::bad_transfer_encoding) {
    return "Transfer-Encoding appears twice, or together with Content-Length";
  }
  if (error == http::error::bad_chunk || error == http::error::bad_chunk_extension) {
    return "the chunked body is malformed";
  }
  return "the request is not valid HTTP/1.1: " + error.message();
}

bool is_expect_continue(const http::request<http::string_body>& message) {
  return message.version() == 11 &&
         boost::beast::iequals(message[http::field::expect], "100-continue");
}

template <class Stream>
Stream open_stream(ConnectionSocket socket, ConnectionContext& context) {
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    return Stream(std::move(socket), *context.tls);
  } else {
    return socket;
  }
}

// What a TLS connection's first byte is when the client speaks plain HTTP: a method's
// first letter. A TLS client's is 0x16 (a handshake record); anything else goes to the
// handshake too, which refuses it.
bool begins_plain_http(char first) {
  return first >= 'A' && first <= 'Z';
}

}  // namespace

template <class Stream>
HttpConnection<Stream>::HttpConnection(ConnectionSocket socket, ConnectionContext& context,
                                       ConnectionBudget::Slot slot, int listener)
    : stream_(open_stream<Stream>(std::move(socket), context)),
      context_(context),
      slot_(std::move(slot)),
      listener_(listener),
      deadline_(stream_.get_executor()),
      hold_(stream_.get_executor()),
      buffer_(context.settings.options.max_header_bytes + kBufferSlack) {}

template <class Stream>
HttpConnection<Stream>::~HttpConnection() {
  if (registry_id_ != 0) context_.registry.remove(registry_id_);
}

template <class Stream>
ConnectionSocket& HttpConnection<Stream>::tcp() {
  if constexpr (kTls) {
    return stream_.next_layer();
  } else {
    return stream_;
  }
}

template <class Stream>
void HttpConnection<Stream>::start() {
  registry_id_ = context_.registry.add(this->weak_from_this());
  error_code unknown;  // a peer gone already: its requests, if any, name no port
  const auto peer = tcp().remote_endpoint(unknown);
  if (!unknown) client_port_ = peer.port();
  net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
    error_code ignored;
    self->tcp().set_option(net::ip::tcp::no_delay(true), ignored);  // small answers, at once
    if constexpr (kTls) {
      self->await_first_byte();
    } else {
      self->begin();
    }
  });
}

template <class Stream>
void HttpConnection<Stream>::begin() {
  if (slot_.admission() != Admission::refused) return await_request();
  // Over capacity: say so before the client sends a byte, rather than queue it.
  Decision refusal = context_.handler.server_error(
      503, "capacity_exhausted",
      "the provider holds its maximum of " +
          std::to_string(context_.settings.options.max_connections) +
          " connections (--max-connections); close idle connections or retry later");
  refusal.headers.emplace("Retry-After", "1");
  report_refusal(503);
  decision_ = std::move(refusal);
  respond(true);
}

template <class Stream>
void HttpConnection<Stream>::await_first_byte() {
  phase_ = Phase::handshake;
  arm_deadline(slot_.admission() == Admission::control_only
                   ? std::min(context_.settings.options.idle_timeout, kReservedIdleTimeout)
                   : context_.settings.options.idle_timeout);
  // Peeked, not read: the handshake reads it again.
  tcp().async_receive(net::buffer(first_byte_), net::socket_base::message_peek,
                      [self = this->shared_from_this()](error_code error, std::size_t bytes) {
                        if (self->deadline_passed_) return self->on_deadline();
                        if (error || bytes == 0) return self->close_socket();
                        if (begins_plain_http(self->first_byte_[0])) {
                          return self->refuse_plain_http();
                        }
                        self->handshake();
                      });
}

template <class Stream>
void HttpConnection<Stream>::handshake() {
  if constexpr (kTls) {
    arm_deadline(context_.settings.options.header_timeout);
    stream_.async_handshake(boost::asio::ssl::stream_base::server,
                            [self = this->shared_from_this()](error_code error) {
                              if (self->deadline_passed_) return self->on_deadline();
                              // OpenSSL has sent its alert, if any: nothing more to say.
                              if (error) return self->close_socket();
                              self->tls_up_ = true;
                              self->begin();
                            });
  }
}

template <class Stream>
void HttpConnection<Stream>::refuse_plain_http() {
  // The client speaks plain HTTP to an HTTPS port: answered in plain HTTP, so that it
  // reads why (as nginx does), then closed. What it sent is not read as a request.
  keep_alive_ = false;
  head_request_ = false;
  decision_ = context_.handler.server_error(
      400, "plain_http_to_https_port",
      "The plain HTTP request was sent to an HTTPS port: this server speaks only HTTPS; use "
      "an https:// URL (and trust the server's CA file)");
  out_ =
      response_head(decision_, BodyFraming::content_length, AfterResponse::closes) + decision_.body;
  phase_ = Phase::writing;
  arm_deadline(context_.settings.options.write_timeout);
  net::async_write(tcp(), net::buffer(out_),
                   [self = this->shared_from_this()](error_code error, std::size_t) {
                     if (error || self->deadline_passed_) return self->close_socket();
                     self->arm_deadline(kLingerTimeout);
                     self->close_tcp_gracefully();
                   });
}

template <class Stream>
void HttpConnection<Stream>::stop() {
  net::post(stream_.get_executor(), [self = this->shared_from_this()] { self->on_stop(); });
}

template <class Stream>
void HttpConnection<Stream>::close_now() {
  error_code ignored;
  tcp().close(ignored);
  phase_ = Phase::closed;
}

template <class Stream>
void HttpConnection<Stream>::on_stop() {
  stopping_ = true;
  switch (phase_) {
    case Phase::holding:
      hold_.cancel();  // the wait ends; the request is completed and answered
      break;
    case Phase::handling:
    case Phase::writing:
      break;  // the answer goes out, then the connection closes
    default:
      close_socket();
      break;
  }
}

template <class Stream>
bool HttpConnection<Stream>::closes_after_response() const {
  return !keep_alive_ || stopping_ || context_.stopping ||
         slot_.admission() != Admission::any_request;
}

template <class Stream>
void HttpConnection<Stream>::await_request() {
  if (stopping_ || context_.stopping) {
    close_socket();
    return;
  }
  phase_ = Phase::idle;
  answered_seq_ = 0;  // an idle timeout's close_notify is not the last answer's
  parser_.reset();
  // An idle connection holds little: at most one read's room, kept so that the next
  // request does not allocate it again; a buffer that grew for a large head is freed.
  if (buffer_.size() == 0 && buffer_.capacity() > kReadChunk) buffer_.shrink_to_fit();
  const Millis idle = context_.settings.options.idle_timeout;
  arm_deadline(slot_.admission() == Admission::control_only ? std::min(idle, kReservedIdleTimeout)
                                                            : idle);
  scan_buffered();
}

template <class Stream>
void HttpConnection<Stream>::scan_buffered() {
  const ServerOptions& options = context_.settings.options;
  const auto data = buffer_.data();
  const HeadScan scan = scan_request_head(
      {static_cast<const char*>(data.data()), data.size()},
      {options.max_request_line_bytes, options.max_header_fields, options.max_header_bytes});
  if (scan.empty_lines > 0 && scan.status != HeadStatus::request_line_too_long) {
    buffer_.consume(scan.empty_lines);
  }
  if (phase_ == Phase::idle && buffer_.size() > 0) {
    phase_ = Phase::head;  // the request has begun: now its head has a deadline
    // A head that is here already needs none: what follows arms its own.
    if (scan.status == HeadStatus::incomplete) arm_deadline(options.header_timeout);
  }
  const std::string limit = std::to_string(options.max_header_bytes);
  switch (scan.status) {
    case HeadStatus::incomplete:
      if (buffer_.size() > 0) acknowledge_now();
      return read_some();
    case HeadStatus::complete:
      return on_head(scan.size);
    case HeadStatus::request_line_too_long:
      return refuse(
          414, "uri_too_long",
          "the request line is over " + std::to_string(options.max_request_line_bytes) + " bytes");
    case HeadStatus::too_many_fields:
      return refuse(431, "request_header_fields_too_large",
                    "the request has more than " + std::to_string(options.max_header_fields) +
                        " header fields");
    case HeadStatus::too_large:
      return refuse(431, "request_header_fields_too_large",
                    "the request head is over " + limit + " bytes");
    case HeadStatus::not_http:
      if (static_cast<unsigned char>(*static_cast<const char*>(data.data())) == 0x16) {
        return refuse(400, "bad_request",
                      "a TLS handshake was sent to a plain HTTP port: this server speaks plain "
                      "HTTP here; use an http:// URL, or start it with --tls");
      }
      return refuse(400, "bad_request",
                    "this is not an HTTP/1.1 request (TLS? the provider speaks plain HTTP)");
    case HeadStatus::obsolete_folding:
      return refuse(400, "bad_request",
                    "a header line starts with a space or tab (obsolete line folding); write "
                    "each header on one line");
  }
}

template <class Stream>
void HttpConnection<Stream>::acknowledge_now() {
  // A client that writes a request in two parts (head, then body) with Nagle's algorithm
  // on sends the second only once the first is acknowledged, and on a kept-alive
  // connection Linux delays that acknowledgement by 40 ms: every such request would take
  // 40 ms. TCP_QUICKACK sends the pending acknowledgement at once.
  const int yes = 1;
  ::setsockopt(tcp().native_handle(), IPPROTO_TCP, TCP_QUICKACK, &yes, sizeof(yes));
}

template <class Stream>
void HttpConnection<Stream>::read_some() {
  const std::size_t room = std::min(kReadChunk, buffer_.max_size() - buffer_.size());
  if (room == 0) {  // cannot happen while the head limit is below the buffer's size
    return refuse(431, "request_header_fields_too_large", "the request head is too large");
  }
  stream_.async_read_some(buffer_.prepare(room),
                          [self = this->shared_from_this()](error_code error, std::size_t bytes) {
                            if (self->deadline_passed_) return self->on_deadline();
                            // The client left, or the server is stopping.
                            if (error) return self->close_socket();
                            self->buffer_.commit(bytes);
                            self->scan_buffered();
                          });
}

template <class Stream>
void HttpConnection<Stream>::on_head(std::size_t head_size) {
  parser_.emplace();
  // The head was checked already; the parser's own limits must not be the tighter ones.
  parser_->header_limit(static_cast<std::uint32_t>(head_size + 1));
  parser_->body_limit(context_.settings.max_body_bytes);
  error_code error;
  const std::size_t used = parser_->put(net::const_buffer(buffer_.data().data(), head_size), error);
  if (error == http::error::body_limit) {
    return refuse(413, "payload_too_large", "");
  }
  if (error || used != head_size || !parser_->is_header_done()) {
    const auto line =
        unreadable_request_line({static_cast<const char*>(buffer_.data().data()), head_size});
    if (line) return dispatch_malformed(*line);
    return refuse(400, "bad_request", describe_parse_error(error));
  }
  buffer_.consume(used);
  const auto& message = parser_->get();
  // A Transfer-Encoding that does not end in chunked leaves the body's end unknown: one
  // reading would take the rest as the next request (request smuggling).
  if (message.count(http::field::transfer_encoding) > 0 && !parser_->chunked()) {
    return refuse(400, "bad_request", "Transfer-Encoding must end in chunked");
  }
  keep_alive_ = message.keep_alive();
  head_request_ = message.method() == http::verb::head;
  http10_ = message.version() < 11;
  if (parser_->is_done()) return dispatch();
  // A client that expects 100 Continue is told to go on before its body is looked at.
  const bool expects_continue = is_expect_continue(message);
  if (!expects_continue && parse_buffered_body()) return;

  phase_ = Phase::body;
  arm_deadline(context_.settings.options.body_timeout);
  acknowledge_now();
  if (expects_continue) {
    out_ = std::string(kContinue);
    net::async_write(stream_, net::buffer(out_),
                     [self = this->shared_from_this()](error_code e, std::size_t) {
                       if (self->deadline_passed_) return self->on_deadline();
                       if (e) return self->close_socket();
                       self->read_body();
                     });
    return;
  }
  read_body();
}

template <class Stream>
bool HttpConnection<Stream>::parse_buffered_body() {
  error_code error;
  while (!parser_->is_done() && buffer_.size() > 0) {
    const std::size_t used = parser_->put(buffer_.data(), error);
    buffer_.consume(used);
    if (error == http::error::need_more) return false;  // the rest is still on its way
    if (error) {
      on_body_error(error);
      return true;
    }
    if (used == 0) return false;
  }
  if (!parser_->is_done()) return false;
  dispatch();
  return true;
}

template <class Stream>
void HttpConnection<Stream>::on_body_error(const error_code& error) {
  if (error == http::error::body_limit) {
    return refuse(413, "payload_too_large", "");
  }
  if (error == http::error::bad_chunk || error == http::error::bad_chunk_extension) {
    return refuse(400, "bad_request", describe_parse_error(error));
  }
  close_socket();
}

template <class Stream>
void HttpConnection<Stream>::read_body() {
  http::async_read(stream_, buffer_, *parser_,
                   [self = this->shared_from_this()](error_code error, std::size_t) {
                     if (self->deadline_passed_) return self->on_deadline();
                     if (error) return self->on_body_error(error);
                     self->dispatch();
                   });
}

template <class Stream>
void HttpConnection<Stream>::ask(const std::function<void(RequestHandler::Answer)>& question,
                                 void (HttpConnection::*then)()) {
  RequestHandler::Answer answer = [self = this->shared_from_this(), then](Decision decision) {
    net::dispatch(self->stream_.get_executor(),
                  [self, then, decision = std::move(decision)]() mutable {
                    self->decision_ = std::move(decision);
                    (self.get()->*then)();
                  });
  };
  try {
    question(answer);
  } catch (const InternalError& broken) {
    record_internal_error(broken);  // the run stops on it; this client gets its 500
    answer(context_.handler.server_error(500, "internal_error", broken.what()));
  } catch (const std::exception& error) {
    answer(context_.handler.server_error(500, "internal_error", error.what()));
  }
}

template <class Stream>
void HttpConnection<Stream>::dispatch() {
  disarm_deadline();
  phase_ = Phase::handling;
  HttpRequest request = to_http_request(parser_->release(), kTls);
  request.listener = listener_;
  if (slot_.admission() == Admission::control_only &&
      !request.path.starts_with(context_.settings.control_prefix)) {
    return refuse(503, "capacity_exhausted",
                  "the provider is at --max-connections (" +
                      std::to_string(context_.settings.options.max_connections) +
                      "); this connection is reserved for the control plane (/_test/)");
  }
  stamp(request);
  ask([&](RequestHandler::Answer answer) { context_.handler.handle_async(request, answer); },
      &HttpConnection::on_decision);
}

template <class Stream>
void HttpConnection<Stream>::dispatch_malformed(const UnreadableRequestLine& line) {
  // As refuse(): the rest of what the client sent is not read; but the handler answers, so
  // that the journal has the request. A seat reserved for the control plane journals none.
  if (slot_.admission() == Admission::control_only) {
    return refuse(400, "bad_request", line.problem);
  }
  keep_alive_ = false;
  head_request_ = false;
  buffer_.clear();
  disarm_deadline();
  phase_ = Phase::handling;
  RequestTarget target = split_target(line.target);
  HttpRequest request{line.method, std::move(target.path), {}, {}};
  request.query = std::move(target.query);
  request.target = line.target;
  request.malformed = line.problem;
  request.listener = listener_;
  stamp(request);
  request.tls = kTls;
  ask([&](RequestHandler::Answer answer) { context_.handler.handle_async(request, answer); },
      &HttpConnection::on_decision);
}

template <class Stream>
void HttpConnection<Stream>::stamp(HttpRequest& request) {
  request.client_port = client_port_;
  request.new_connection = !read_a_request_;
  read_a_request_ = true;
}

template <class Stream>
void HttpConnection<Stream>::on_decision() {
  if (decision_.delay <= Millis(0)) return deliver();

  phase_ = Phase::holding;
  if (stopping_) return on_hold_end();  // stopping ends every wait, this one at once
  hold_.expires_after(decision_.delay);
  hold_.async_wait([self = this->shared_from_this()](error_code) { self->on_hold_end(); });
}

template <class Stream>
void HttpConnection<Stream>::on_hold_end() {
  if (!decision_.pending_commit) return deliver();
  phase_ = Phase::handling;
  const std::uint64_t hold = *decision_.pending_commit;
  ask([&](RequestHandler::Answer answer) { context_.handler.complete_async(hold, answer); },
      &HttpConnection::deliver);
}

template <class Stream>
void HttpConnection<Stream>::deliver() {
  answered_seq_ = decision_.journal_seq;
  error_code ignored;
  switch (decision_.delivery) {
    case Delivery::respond:
      return respond(closes_after_response());
    case Delivery::drop:  // FIN, not one byte
      phase_ = Phase::closing;
      return close_gracefully();
    case Delivery::reset:  // RST, not one byte: a zero linger makes close() abort
      tcp().set_option(net::socket_base::linger(true, 0), ignored);
      return close_socket();
    case Delivery::truncate: {  // a head that promises the whole body, half of it, FIN
      std::string bytes =
          response_head(decision_, BodyFraming::content_length, AfterResponse::closes);
      bytes.append(decision_.body, 0, decision_.body.size() / 2);
      return write(std::move(bytes), [this] { close_gracefully(); });
    }
  }
}

template <class Stream>
void HttpConnection<Stream>::respond(bool closes) {
  const auto after = [this](bool closing) {
    if (closing) return AfterResponse::closes;
    return http10_ ? AfterResponse::stays_open_for_http10 : AfterResponse::stays_open;
  };
  if (!decision_.body_chunks) {
    std::string bytes = response_head(decision_, BodyFraming::content_length, after(closes));
    if (!head_request_) bytes += decision_.body;
    return write(std::move(bytes), [this, closes] { after_response(closes); });
  }
  // An HTTP/1.0 client knows no chunks: it reads the body until the connection closes.
  const BodyFraming framing = http10_ ? BodyFraming::until_close : BodyFraming::chunked;
  closes = closes || http10_;
  std::string head = response_head(decision_, framing, after(closes));
  if (head_request_) {  // the head a GET would get, and no body: nothing is pulled
    return write(std::move(head), [this, closes] { after_response(closes); });
  }
  write(std::move(head), [this, closes] { send_next_chunk(closes); });
}

template <class Stream>
void HttpConnection<Stream>::send_next_chunk(bool closes) {
  std::optional<std::string> next;
  try {
    do {
      next = decision_.body_chunks();
    } while (next && next->empty());  // an empty chunk would end the body early
  } catch (const std::exception&) {
    return close_socket();  // the head is out: a cut body is all that can be said
  }
  if (!next) {
    if (http10_) return after_response(true);
    return write(std::string(kLastChunk), [this, closes] { after_response(closes); });
  }
  write(http10_ ? std::move(*next) : chunk(*next), [this, closes] { send_next_chunk(closes); });
}

template <class Stream>
void HttpConnection<Stream>::write(std::string bytes, std::function<void()> then) {
  phase_ = Phase::writing;
  arm_deadline(context_.settings.options.write_timeout);
  out_ = std::move(bytes);
  net::async_write(
      stream_, net::buffer(out_),
      [self = this->shared_from_this(), then = std::move(then)](error_code error, std::size_t) {
        if (error || self->deadline_passed_) return self->close_socket();
        then();
      });
}

template <class Stream>
void HttpConnection<Stream>::after_response(bool closes) {
  decision_ = {};
  if (closes) return close_gracefully();
  await_request();
}

template class HttpConnection<ConnectionSocket>;
template class HttpConnection<TlsStream>;

}  // namespace retryproof::provider
