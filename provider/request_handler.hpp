// What the HTTP server asks of the application behind it, from its I/O threads (so
// concurrently): the server owns sockets, framing, limits and deadlines; the handler
// decides every answer.
#pragma once

#include <cstdint>
#include <functional>
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

  // The server asks through these two. A handler whose answer needs I/O of its own (the
  // proxy asks its upstream) overrides them and calls `answer` later, from any thread,
  // exactly once, or throws without calling it; `request` lives only during the call.
  // The connection meanwhile holds no thread. By default they answer at once.
  using Answer = std::function<void(Decision)>;
  virtual void handle_async(const HttpRequest& request, Answer answer) { answer(handle(request)); }
  virtual void complete_async(std::uint64_t pending_commit, Answer answer) {
    answer(complete(pending_commit));
  }

  // The server is answering a request itself (server_error): over capacity, past a deadline,
  // over a limit, or not HTTP. Not called for the control plane's path.
  virtual void refused(const RefusedRequest& /*request*/) {}

  // Over HTTPS: the server is ending the TLS stream with a close_notify right after the
  // answer to journal entry `journal_seq` (Decision::journal_seq), before the alert is
  // written, so the journal says so by the time the client sees the stream end.
  virtual void close_notify_sent(std::uint64_t /*journal_seq*/) {}
};

}  // namespace retryproof::provider
