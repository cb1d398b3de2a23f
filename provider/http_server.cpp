#include "provider/http_server.hpp"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "provider/connection_budget.hpp"
#include "provider/http_connection.hpp"

namespace retryproof::provider {
namespace {

namespace net = boost::asio;
using boost::system::error_code;
using net::ip::tcp;

// When accept fails for want of descriptors or memory, wait this long before the next
// try: the pending connections wait in the listen backlog, and other connections
// closing meanwhile give descriptors back.
constexpr Millis kAcceptBackoff{100};
// How long stop() lets connections finish their last answer before closing them.
constexpr Millis kStopGrace{500};

// TLS 1.2 and 1.3 with OpenSSL's defaults for both (its cipher lists and groups), the
// identity's certificate chain and key. Throws std::runtime_error saying what OpenSSL refused.
std::optional<net::ssl::context> tls_context(const std::optional<TlsIdentity>& identity) {
  if (!identity) return std::nullopt;
  std::optional<net::ssl::context> context(std::in_place, net::ssl::context::tls_server);
  try {
    context->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                         net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
                         net::ssl::context::no_tlsv1_1 | net::ssl::context::single_dh_use);
    context->use_certificate_chain(net::buffer(identity->certificate_chain_pem));
    context->use_private_key(net::buffer(identity->private_key_pem), net::ssl::context::pem);
  } catch (const boost::system::system_error& error) {
    throw std::runtime_error("cannot serve TLS with this certificate and key: " +
                             std::string(error.what()));
  }
  return context;
}

bool is_resource_shortage(const error_code& error) {
  return error == net::error::no_descriptors ||  // EMFILE
         error == boost::system::errc::too_many_files_open_in_system ||
         error == net::error::no_buffer_space || error == net::error::no_memory;
}

}  // namespace

struct HttpServer::Impl {
  Impl(RequestHandler& handler, HttpServerSettings server_settings)
      : settings(std::move(server_settings)),
        budget(settings.options.max_connections, settings.options.reserved_control_connections),
        tls(tls_context(settings.options.tls)),
        context{handler, settings, registry, stopping, tls ? &*tls : nullptr},
        acceptor(net::make_strand(io)),
        backoff(acceptor.get_executor()) {}

  // A port beyond the main one (add_listener), with its own acceptor.
  struct Listener {
    explicit Listener(net::io_context& io) : acceptor(net::make_strand(io)) {}
    tcp::acceptor acceptor;
    int port = 0;
  };

  // Binds `target` on the host and `port`; returns the port bound.
  int bind(tcp::acceptor& target, int port);
  void accept();
  void on_accept(const error_code& error, ConnectionSocket socket);
  void accept_on(Listener& listener);
  template <class Stream>
  void serve(ConnectionSocket socket, int listener);

  // Declared in the order they may be destroyed: the io_context goes first (and with
  // it every connection), while the budget and the registry they report to still exist.
  HttpServerSettings settings;
  std::atomic<bool> stopping{false};
  ConnectionBudget budget;
  ConnectionRegistry registry;
  std::optional<net::ssl::context> tls;  // set when the server speaks HTTPS
  ConnectionContext context;
  net::io_context io;
  tcp::acceptor acceptor;
  net::steady_timer backoff;
  std::mutex listeners_mutex;      // add_listener() and stop() may run on different threads
  std::deque<Listener> listeners;  // stable addresses: their accept handlers hold them
  bool started = false;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::vector<std::thread> threads;
  std::once_flag stopped;
  int port = -1;
};

int HttpServer::Impl::bind(tcp::acceptor& target, int port_wanted) {
  const ServerOptions& options = settings.options;
  const std::string where = options.host + ":" + std::to_string(port_wanted);
  error_code error;
  tcp::resolver resolver(io);
  const auto endpoints =
      resolver.resolve(options.host, std::to_string(port_wanted),
                       tcp::resolver::passive | tcp::resolver::numeric_service, error);
  if (error) throw std::runtime_error("cannot listen on " + where + " (" + error.message() + ")");
  for (const auto& entry : endpoints) {
    target.open(entry.endpoint().protocol(), error);
    // SO_REUSEADDR only: with SO_REUSEPORT a second provider would bind a busy port and
    // silently take half of the first one's connections. A busy port must be an error.
    if (!error) target.set_option(tcp::acceptor::reuse_address(true), error);
    if (!error) target.bind(entry.endpoint(), error);
    if (!error) target.listen(net::socket_base::max_listen_connections, error);
    if (!error) return target.local_endpoint().port();
    error_code ignored;
    target.close(ignored);
  }
  if (error == net::error::address_in_use) {
    throw std::runtime_error("cannot listen on " + where + " (" + error.message() +
                             "): the port is in use; --port 0 picks a free one, "
                             "and the URL printed first says which");
  }
  throw std::runtime_error("cannot listen on " + where + " (" +
                           (error ? error.message() : std::string("no address")) +
                           ": not an address of this machine?)");
}

void HttpServer::Impl::accept() {
  // Each connection gets a strand of its own: its handlers never run concurrently.
  acceptor.async_accept(net::make_strand(io), [this](error_code error, ConnectionSocket socket) {
    on_accept(error, std::move(socket));
  });
}

void HttpServer::Impl::on_accept(const error_code& error, ConnectionSocket socket) {
  if (stopping || error == net::error::operation_aborted) return;
  if (error) {
    if (!is_resource_shortage(error)) return accept();  // ECONNABORTED and the like
    backoff.expires_after(kAcceptBackoff);
    backoff.async_wait([this](error_code waited) {
      if (!waited && !stopping) accept();
    });
    return;
  }
  tls ? serve<TlsStream>(std::move(socket), 0) : serve<ConnectionSocket>(std::move(socket), 0);
  accept();
}

template <class Stream>
void HttpServer::Impl::serve(ConnectionSocket socket, int listener) {
  std::make_shared<HttpConnection<Stream>>(std::move(socket), context, budget.admit(), listener)
      ->start();
}

// An extra listener's accept loop: as the main one's, without its backoff on a shortage
// (a fleet's port is one client's; it tries again at its next connection).
void HttpServer::Impl::accept_on(Listener& listener) {
  listener.acceptor.async_accept(
      net::make_strand(io), [this, &listener](error_code error, ConnectionSocket socket) {
        if (stopping || error == net::error::operation_aborted) return;
        if (!error) {
          tls ? serve<TlsStream>(std::move(socket), listener.port)
              : serve<ConnectionSocket>(std::move(socket), listener.port);
        }
        accept_on(listener);
      });
}

HttpServer::HttpServer(RequestHandler& handler, HttpServerSettings settings)
    : impl_(std::make_unique<Impl>(handler, std::move(settings))) {
  impl_->port = impl_->bind(impl_->acceptor, impl_->settings.options.port);
}

int HttpServer::add_listener() {
  std::lock_guard lock(impl_->listeners_mutex);
  if (impl_->stopping) throw std::runtime_error("the server has stopped");
  Impl::Listener& listener = impl_->listeners.emplace_back(impl_->io);
  try {
    listener.port = impl_->bind(listener.acceptor, 0);
  } catch (...) {
    impl_->listeners.pop_back();
    throw;
  }
  if (impl_->started) impl_->accept_on(listener);
  return listener.port;
}

void HttpServer::start() {
  impl_->work.emplace(impl_->io.get_executor());
  impl_->accept();
  {
    std::lock_guard lock(impl_->listeners_mutex);
    impl_->started = true;
    for (Impl::Listener& listener : impl_->listeners)
      impl_->accept_on(listener);
  }
  const std::size_t threads = std::max<std::size_t>(1, impl_->settings.options.workers);
  for (std::size_t i = 0; i < threads; ++i) {
    impl_->threads.emplace_back([io = &impl_->io] {
      while (true) {
        try {
          io->run();
          return;
        } catch (const std::exception&) {
          // A handler that throws is a bug to fix; the server serves on meanwhile.
        }
      }
    });
  }
}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::port() const {
  return impl_->port;
}

void HttpServer::stop() {
  std::call_once(impl_->stopped, [impl = impl_.get()] {
    impl->stopping = true;
    net::post(impl->acceptor.get_executor(), [impl] {
      error_code ignored;
      impl->acceptor.close(ignored);
      impl->backoff.cancel();
    });
    {
      std::lock_guard lock(impl->listeners_mutex);
      for (Impl::Listener& listener : impl->listeners) {
        net::post(listener.acceptor.get_executor(), [&listener] {
          error_code ignored;
          listener.acceptor.close(ignored);
        });
      }
    }
    for (const auto& connection : impl->registry.live())
      connection->stop();
    impl->budget.wait_until_empty(std::chrono::steady_clock::now() + kStopGrace);
    impl->work.reset();
    impl->io.stop();
    for (auto& thread : impl->threads)
      thread.join();
    // No handler runs now, so the listening sockets are closed here whether or not the
    // posted closes ran: a stopped server refuses connections rather than queueing them.
    error_code ignored;
    impl->acceptor.close(ignored);
    for (Impl::Listener& listener : impl->listeners)
      listener.acceptor.close(ignored);
    // What did not finish in time is closed now; the objects go with the io_context.
    for (const auto& connection : impl->registry.live())
      connection->close_now();
  });
}

}  // namespace retryproof::provider
