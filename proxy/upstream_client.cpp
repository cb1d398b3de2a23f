#include "proxy/upstream_client.hpp"

#include <strings.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "common/duration.hpp"
#include "proxy/upstream_tls.hpp"

namespace retryproof::proxy {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;
using net::ip::tcp;

// The largest head an upstream may send: far beyond any real API's.
constexpr std::uint32_t kMaxResponseHead = 64 * 1024;
// How long stop() waits for the exchanges it ended to report it.
constexpr Millis kStopGrace{1'000};

// Fields that describe one connection, not the message (RFC 9110 7.6.1), and the framing
// the proxy writes itself: never passed on, in either direction.
bool is_hop_by_hop(std::string_view name, std::string_view connection_option) {
  for (const char* hop :
       {"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
        "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Host", "Expect"}) {
    if (name.size() == std::strlen(hop) && strncasecmp(name.data(), hop, name.size()) == 0) {
      return true;
    }
  }
  // A field the Connection header names is hop-by-hop too.
  std::size_t start = 0;
  while (start < connection_option.size()) {
    std::size_t end = std::min(connection_option.find(',', start), connection_option.size());
    std::string_view token = connection_option.substr(start, end - start);
    while (token.starts_with(' '))
      token.remove_prefix(1);
    while (token.ends_with(' '))
      token.remove_suffix(1);
    if (token.size() == name.size() && strncasecmp(token.data(), name.data(), name.size()) == 0) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// The target in origin form: an absolute-form target ("http://host/jobs") loses its
// scheme and authority.
std::string origin_form(const std::string& target) {
  if (target.starts_with('/') || target == "*") return target;
  const auto scheme_end = target.find("://");
  if (scheme_end == std::string::npos) return target;
  const auto path = target.find('/', scheme_end + 3);
  return path == std::string::npos ? "/" : target.substr(path);
}

http::request<http::string_body> upstream_request(const provider::HttpRequest& request,
                                                  const UpstreamUrl& url) {
  http::request<http::string_body> out;
  const http::verb verb = http::string_to_verb(request.method);
  if (verb == http::verb::unknown) {
    out.method_string(request.method);
  } else {
    out.method(verb);
  }
  const std::string target = origin_form(request.target.empty() ? request.path : request.target);
  out.target(target == "*" && !url.base_path.empty() ? url.base_path : url.base_path + target);
  out.version(11);
  std::string connection_option;
  for (auto [field, last] = request.headers.equal_range("Connection"); field != last; ++field) {
    connection_option += field->second + ",";
  }
  for (const auto& [name, value] : request.headers) {
    if (!is_hop_by_hop(name, connection_option)) out.insert(name, value);
  }
  out.set(http::field::host, url.authority());
  out.keep_alive(false);  // one connection per request: its end is the answer's end
  out.body() = request.body;
  out.prepare_payload();
  return out;
}

UpstreamAnswer answer_of(http::response<http::string_body>&& response) {
  UpstreamAnswer answer;
  answer.status = static_cast<int>(response.result_int());
  const std::string connection_option(response[http::field::connection]);
  for (const auto& field : response) {
    const std::string_view name(field.name_string().data(), field.name_string().size());
    if (is_hop_by_hop(name, connection_option)) continue;
    if (strncasecmp(name.data(), "Content-Type", name.size()) == 0 && name.size() == 12) {
      answer.content_type = std::string(field.value());
      continue;
    }
    answer.headers.emplace(std::string(name), std::string(field.value()));
  }
  answer.body = std::move(response.body());
  return answer;
}

UpstreamAnswer failure(UpstreamFailure kind, std::string detail) {
  return UpstreamAnswer{.failure = kind, .detail = std::move(detail)};
}

}  // namespace

struct UpstreamClient::Impl {
  struct Exchange;
  template <class Stream>
  struct StreamExchange;

  Impl(UpstreamUrl upstream_url, UpstreamLimits upstream_limits, UpstreamTrust upstream_trust)
      : url(std::move(upstream_url)),
        limits(upstream_limits),
        trust(std::move(upstream_trust)),
        work(io.get_executor()) {
    if (url.tls) {
      tls.emplace(net::ssl::context::tls_client);
      configure_upstream_context(tls->native_handle(), trust);
    }
    error_code error;
    tcp::resolver resolver(io);
    endpoints =
        resolver.resolve(url.host, std::to_string(url.port), tcp::resolver::numeric_service, error);
    if (error || endpoints.empty()) {
      throw std::runtime_error("cannot resolve the upstream host \"" + url.host +
                               "\": " + (error ? error.message() : "no address"));
    }
    thread = std::thread([this] { io.run(); });
  }

  std::shared_ptr<Exchange> exchange(std::uint64_t id, const provider::HttpRequest& request,
                                     Done done);

  void finished(std::uint64_t id) {
    std::lock_guard lock(mutex);
    live.erase(id);
    if (live.empty()) drained.notify_all();
  }

  const UpstreamUrl url;
  const UpstreamLimits limits;
  const UpstreamTrust trust;
  net::io_context io;
  // An https upstream's, never changed once made: exchanges are made (SSL_new) on the
  // server's threads and run on the client's, which OpenSSL's SSL_CTX allows.
  std::optional<net::ssl::context> tls;
  tcp::resolver::results_type endpoints;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable drained;
  std::atomic<bool> stopping{false};
  bool stopped = false;
  std::uint64_t next_id = 0;
  std::unordered_map<std::uint64_t, std::shared_ptr<Exchange>> live;
};

// What stop() needs of an exchange, plain or TLS.
struct UpstreamClient::Impl::Exchange {
  virtual ~Exchange() = default;
  virtual void start() = 0;
  virtual void close() = 0;  // on the client's thread: the pending step ends
};

// One forwarded request: connect, (over TLS, handshake and verify,) write, read one final
// answer, close. Every step runs on the client's one thread; each ends in finish(), exactly
// once.
template <class Stream>
struct UpstreamClient::Impl::StreamExchange final
    : Exchange,
      std::enable_shared_from_this<StreamExchange<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  StreamExchange(Impl& client, std::uint64_t exchange_id, http::request<http::string_body> message,
                 bool head_request, Done on_done)
      : owner(client),
        id(exchange_id),
        stream(open(client)),
        request(std::move(message)),
        head(head_request),
        done(std::move(on_done)) {}

  static Stream open(Impl& client) {
    if constexpr (kTls) {
      return Stream(client.io, *client.tls);
    } else {
      return Stream(client.io);
    }
  }

  beast::tcp_stream& transport() { return beast::get_lowest_layer(stream); }

  void start() override {
    if (owner.stopping) return finish(failure(UpstreamFailure::stopping, "the proxy is stopping"));
    transport().expires_after(owner.limits.connect_timeout);
    transport().async_connect(
        owner.endpoints, [self = this->shared_from_this()](error_code error, const tcp::endpoint&) {
          self->on_connect(error);
        });
  }

  void close() override { transport().close(); }

  void on_connect(const error_code& error) {
    if (owner.stopping) return finish(failure(UpstreamFailure::stopping, "the proxy is stopping"));
    if (error == beast::error::timeout) {
      return finish(failure(UpstreamFailure::timeout,
                            "no connection to " + owner.url.authority() + " within " +
                                format_duration(owner.limits.connect_timeout)));
    }
    if (error) {
      return finish(failure(UpstreamFailure::unreachable,
                            "cannot connect to " + owner.url.authority() + ": " + error.message()));
    }
    transport().expires_after(owner.limits.response_timeout);  // the handshake counts in it
    if constexpr (kTls) {
      expect_upstream_host(stream.native_handle(), owner.url.host);
      stream.async_handshake(
          net::ssl::stream_base::client,
          [self = this->shared_from_this()](error_code e) { self->on_handshake(e); });
    } else {
      write();
    }
  }

  void on_handshake(const error_code& error) {
    if (owner.stopping) return finish(failure(UpstreamFailure::stopping, "the proxy is stopping"));
    if (error == beast::error::timeout) {
      return finish(failure(UpstreamFailure::timeout,
                            "no TLS handshake with " + owner.url.authority() + " within " +
                                format_duration(owner.limits.response_timeout)));
    }
    if (error) {
      if constexpr (kTls) {
        return finish(
            failure(UpstreamFailure::tls, handshake_failure(stream.native_handle(), owner.trust,
                                                            owner.url.host, error.message())));
      }
    }
    write();
  }

  void write() {
    http::async_write(stream, request,
                      [self = this->shared_from_this()](error_code e, std::size_t) {
                        if (e) return self->on_read(e);  // the same failures as the answer's
                        self->read();
                      });
  }

  void read() {
    parser.emplace();
    parser->header_limit(kMaxResponseHead);
    parser->body_limit(owner.limits.max_response_bytes);
    parser->skip(head);  // the answer to a HEAD has no body, whatever its Content-Length
    // The head first, then the body: reading both at once (eagerly), Beast 1.74 lets a
    // Content-Length over the body limit pass.
    http::async_read_header(
        stream, buffer, *parser, [self = this->shared_from_this()](error_code error, std::size_t) {
          if (error || self->parser->is_done()) return self->on_read(error);
          http::async_read(self->stream, self->buffer, *self->parser,
                           [self](error_code e, std::size_t) { self->on_read(e); });
        });
  }

  void on_read(const error_code& error) {
    if (owner.stopping) return finish(failure(UpstreamFailure::stopping, "the proxy is stopping"));
    const std::string within = " within " + format_duration(owner.limits.response_timeout);
    if (error == beast::error::timeout) {
      return finish(failure(UpstreamFailure::timeout,
                            "no complete answer from " + owner.url.authority() + within));
    }
    if (error == http::error::end_of_stream) {
      return finish(
          failure(UpstreamFailure::closed, "the upstream closed the connection without an answer"));
    }
    if (error == net::ssl::error::stream_truncated) {
      return finish(failure(UpstreamFailure::closed,
                            "the upstream ended the connection without a TLS close_notify, "
                            "before a complete answer"));
    }
    if (error == http::error::partial_message) {
      return finish(failure(UpstreamFailure::closed,
                            "the upstream closed the connection in the middle of its answer"));
    }
    if (error && error.category() == http::make_error_code(http::error::bad_version).category()) {
      return finish(failure(
          UpstreamFailure::malformed,
          "the upstream's answer is not HTTP/1.1 within the proxy's limits: " + error.message()));
    }
    if (error) {
      return finish(failure(UpstreamFailure::closed,
                            "the connection to the upstream failed: " + error.message()));
    }
    if (parser->get().result_int() / 100 == 1) return read();  // interim (1xx): the next one
    finish(answer_of(parser->release()));
  }

  void finish(UpstreamAnswer answer) {
    if (!done) return;
    error_code ignored;
    transport().socket().shutdown(tcp::socket::shutdown_both, ignored);
    transport().close();
    Done report = std::move(done);
    done = nullptr;
    owner.finished(id);  // after this, `this` may live only as long as its handler
    report(std::move(answer));
  }

  Impl& owner;
  const std::uint64_t id;
  Stream stream;
  http::request<http::string_body> request;
  const bool head;
  Done done;
  beast::flat_buffer buffer;
  std::optional<http::response_parser<http::string_body>> parser;
};

std::shared_ptr<UpstreamClient::Impl::Exchange> UpstreamClient::Impl::exchange(
    std::uint64_t id, const provider::HttpRequest& request, Done done) {
  auto message = upstream_request(request, url);
  const bool head = request.method == "HEAD";
  if (tls) {
    return std::make_shared<StreamExchange<beast::ssl_stream<beast::tcp_stream>>>(
        *this, id, std::move(message), head, std::move(done));
  }
  return std::make_shared<StreamExchange<beast::tcp_stream>>(*this, id, std::move(message), head,
                                                             std::move(done));
}

UpstreamClient::UpstreamClient(UpstreamUrl url, UpstreamLimits limits, UpstreamTrust trust)
    : impl_(std::make_unique<Impl>(std::move(url), limits, std::move(trust))) {}

UpstreamClient::~UpstreamClient() {
  stop();
}

const UpstreamUrl& UpstreamClient::url() const {
  return impl_->url;
}

void UpstreamClient::send(const provider::HttpRequest& request, Done done) {
  std::shared_ptr<Impl::Exchange> exchange;
  {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->stopping) {
      const std::uint64_t id = ++impl_->next_id;
      exchange = impl_->exchange(id, request, std::move(done));
      impl_->live.emplace(id, exchange);
    }
  }
  if (!exchange) {
    done(failure(UpstreamFailure::stopping, "the proxy is stopping"));
    return;
  }
  net::post(impl_->io, [exchange] { exchange->start(); });
}

void UpstreamClient::stop() {
  std::vector<std::shared_ptr<Impl::Exchange>> ending;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopped) return;
    impl_->stopped = true;
    impl_->stopping = true;
    for (const auto& [id, exchange] : impl_->live)
      ending.push_back(exchange);
  }
  // Closing the socket ends the exchange's pending step, which sees `stopping`.
  net::post(impl_->io, [ending] {
    for (const auto& exchange : ending) {
      exchange->close();
    }
  });
  {
    std::unique_lock lock(impl_->mutex);
    impl_->drained.wait_for(lock, kStopGrace, [this] { return impl_->live.empty(); });
  }
  impl_->work.reset();
  impl_->io.stop();
  impl_->thread.join();
}

}  // namespace retryproof::proxy
