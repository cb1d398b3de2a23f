#include "provider/provider_server.hpp"

#include <stdexcept>

#include "provider/connection_socket.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {
namespace {

constexpr auto kAnyPath = R"(.*)";

HttpRequest to_core_request(const httplib::Request& request) {
  HttpRequest core_request{request.method, request.path, {}, request.body,
                           httplib::detail::params_to_query_str(request.params)};
  for (const auto& [name, value] : request.headers)
    core_request.headers.emplace(name, value);
  return core_request;
}

void write_response(const Decision& decision, httplib::Response& response) {
  response.status = decision.status;
  for (const auto& [name, value] : decision.headers)
    response.set_header(name, value);
  response.set_content(decision.body, decision.content_type.c_str());
}

}  // namespace

ProviderServer::ProviderServer(ProviderConfig config, const ServerOptions& options)
    : core_(std::move(config)), host_(options.host), started_(std::chrono::steady_clock::now()) {
  const auto handler = [this](const httplib::Request& request, httplib::Response& response) {
    serve(request, response);
  };
  // Every method and path goes to the core, which knows the routes, 404s and 405s.
  server_.Get(kAnyPath, handler);
  server_.Post(kAnyPath, handler);
  server_.Put(kAnyPath, handler);
  server_.Patch(kAnyPath, handler);
  server_.Delete(kAnyPath, handler);
  server_.Options(kAnyPath, handler);

  // Errors the library answers itself (a body over the limit, a malformed request line)
  // get the provider's JSON error shape too.
  server_.set_payload_max_length(core_.config().max_body_bytes);
  server_.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request&, httplib::Response& response) {
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        write_response(core_.library_error(response.status), response);
        return httplib::Server::HandlerResponse::Handled;
      }));
  server_.set_exception_handler(
      [](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
        write_response(error_response(500, "internal_error"), response);
      });

  // cpp-httplib's default also sets SO_REUSEPORT, which lets a second provider bind a
  // busy port and silently take half of its requests. A busy port must be an error.
  server_.set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // Without TCP_NODELAY, Nagle's algorithm and delayed ACKs hold small responses back
  // ~40 ms each: a thousand requests a second, whatever the machine.
  server_.set_tcp_nodelay(true);
  // The library's API takes ownership of a raw pointer here.
  server_.new_task_queue = [workers = options.workers] { return new httplib::ThreadPool(workers); };

  if (options.port == 0) {
    port_ = server_.bind_to_any_port(host_);
  } else if (server_.bind_to_port(host_, options.port)) {
    port_ = options.port;
  }
  if (port_ <= 0) {
    throw std::runtime_error("cannot listen on " + host_ + ":" + std::to_string(options.port) +
                             " (address in use, or not an address of this machine)");
  }
  widen_listen_backlog(port_);
  listener_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs, so wait for it: a server stopped
  // right after construction must not leave the listener blocked forever.
  while (!server_.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

ProviderServer::~ProviderServer() {
  stop();
}

void ProviderServer::stop() {
  {
    std::lock_guard lock(stopping_mutex_);
    stopping_ = true;
  }
  stopping_changed_.notify_all();  // held requests stop waiting
  server_.stop();
  if (listener_.joinable()) listener_.join();
}

std::string ProviderServer::base_url() const {
  const bool ipv6 = host_.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

Millis ProviderServer::now() const {
  return std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - started_);
}

void ProviderServer::hold(Millis duration) {
  std::unique_lock lock(stopping_mutex_);
  stopping_changed_.wait_for(lock, duration, [this] { return stopping_; });
}

void ProviderServer::serve(const httplib::Request& request, httplib::Response& response) {
  Decision decision = core_.handle(to_core_request(request), now());
  if (decision.delay > Millis(0)) hold(decision.delay);
  if (decision.pending_commit) decision = core_.complete(*decision.pending_commit, now());
  deliver(decision, request, response);
}

void ProviderServer::deliver(const Decision& decision, const httplib::Request& request,
                             httplib::Response& response) {
  if (decision.delivery == Delivery::respond) {
    write_response(decision, response);
    return;
  }
  const auto fd = find_connection_socket(
      {request.local_addr, request.local_port, request.remote_addr, request.remote_port});
  if (!fd) {
    // Never answer normally in place of a fault: that would hide it.
    write_response(error_response(500, "internal_error", "could not find the connection"),
                   response);
    return;
  }
  switch (decision.delivery) {
    case Delivery::drop:
      drop_connection(*fd);
      break;
    case Delivery::reset:
      reset_connection(*fd);
      break;
    case Delivery::truncate: {
      // A complete head that promises the whole body, then half of it.
      const std::string head = "HTTP/1.1 " + std::to_string(decision.status) +
                               " Created\r\nContent-Type: " + decision.content_type +
                               "\r\nContent-Length: " + std::to_string(decision.body.size()) +
                               "\r\n\r\n";
      drop_connection(*fd, head + decision.body.substr(0, decision.body.size() / 2));
      break;
    }
    case Delivery::respond:
      break;
  }
}

}  // namespace retryproof::provider
