// An HTTP/1.1 server on Boost.Beast and Asio that serves a RequestHandler: a few I/O
// threads for any number of connections, a connection cap with seats reserved for the
// control plane, deadlines and limits on everything a client sends, and delays held by
// timers rather than threads. No Boost here: Asio and Beast stay in the .cpp files.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "provider/request_handler.hpp"
#include "provider/server_options.hpp"

namespace retryproof::provider {

struct HttpServerSettings {
  ServerOptions options;
  std::size_t max_body_bytes = 1024 * 1024;  // larger bodies get 413 before they are read
  // Requests whose path starts with this may use the reserved connections.
  std::string control_prefix = "/_test/";
};

class HttpServer {
 public:
  // Binds, so that port() is known, but serves nothing before start(). Throws
  // std::runtime_error when the address cannot be bound. `handler` must outlive the server.
  HttpServer(RequestHandler& handler, HttpServerSettings settings);
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;

  // Listens on one more port of the same host, before or after start(), and returns it.
  // Requests arriving there carry it (HttpRequest::listener): a fleet gives each client
  // a port of its own, so that its requests are told apart whatever keys it sends.
  // Throws std::runtime_error when no port can be bound.
  int add_listener();

  // Starts the I/O threads: from here on `handler` is called, from any of them.
  void start();

  // Stops accepting, ends every wait (a held request completes and is answered),
  // closes every connection and joins the I/O threads, in well under a second whatever
  // the clients do. Idempotent.
  void stop();

  struct Impl;  // public so the connections can reach it; defined in http_server.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace retryproof::provider
