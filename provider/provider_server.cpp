#include "provider_server.hpp"

#include <stdexcept>

#include "connection_socket.hpp"
#include "responses.hpp"

namespace retryproof::provider {
namespace {

constexpr auto kAnyPath = R"(.*)";

HttpRequest to_core_request(const httplib::Request& request) {
  HttpRequest core_request{request.method, request.path, {}, request.body};
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
      [](const httplib::Request&, httplib::Response& response) {
        if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const Decision decision = response.status == 413 ? error_response(413, "payload_too_large")
                                  : response.status == 404
                                      ? error_response(404, "not_found")
                                      : error_response(response.status, "bad_request");
        write_response(decision, response);
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

void ProviderServer::serve(const httplib::Request& request, httplib::Response& response) {
  const Decision decision = core_.handle(to_core_request(request), now());
  switch (decision.delivery) {
    case Delivery::respond:
      write_response(decision, response);
      return;
    case Delivery::drop: {
      const auto fd = find_connection_socket(
          {request.local_addr, request.local_port, request.remote_addr, request.remote_port});
      if (!fd) {
        // Never answer normally in place of a drop: that would hide the fault.
        write_response(error_response(500, "internal_error", "could not find the connection"),
                       response);
        return;
      }
      drop_connection(*fd);
      return;
    }
  }
}

}  // namespace retryproof::provider
