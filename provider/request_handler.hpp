// What the HTTP server asks of the application behind it, from its I/O threads (so
// concurrently): the server owns sockets, framing, limits and deadlines; the handler
// decides every answer.
#pragma once

#include <cstdint>
#include <string_view>

#include "provider/http_types.hpp"

namespace retryproof::provider {

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;

  virtual Decision handle(const HttpRequest& request) = 0;
  // The end of a Decision::pending_commit hold: what to deliver now.
  virtual Decision complete(std::uint64_t pending_commit) = 0;
  // An error the server answers itself, before or instead of handle(): a malformed or
  // oversized request, a deadline passed, a connection over capacity.
  virtual Decision server_error(int status, std::string_view code, std::string_view detail) = 0;
};

}  // namespace retryproof::provider
