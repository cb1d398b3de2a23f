// The provider core's view of HTTP: plain values, no sockets. The HTTP server turns
// requests into HttpRequest and a Decision back into bytes on the wire.
#pragma once

#include <strings.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/millis.hpp"

namespace retryproof::provider {

struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return strcasecmp(a.c_str(), b.c_str()) < 0;
  }
};
using Headers = std::multimap<std::string, std::string, CaseInsensitiveLess>;

struct HttpRequest {
  std::string method;
  std::string path;  // percent-decoded, without the query string
  Headers headers;
  std::string body;
  std::string query;   // the raw query string, without the '?'; empty when there is none
  std::string target;  // the request target as sent, undecoded: what a proxy forwards
  // Set when the request line is one HTTP forbids but a person can read (a raw CR in the
  // target, no version: request_head.hpp): the handler journals the request and refuses
  // it, 400 with this as its detail. Nothing but the method and target is known then.
  std::string malformed;
  // The port it arrived on when that is one of the server's extra listeners
  // (HttpServer::add_listener: a port per client of a fleet); 0 on the main port.
  int listener = 0;
  // The client's end of its connection (its source port; 0 when unknown), and whether it
  // is the first request read on that connection: JournalEntry::client_port.
  int client_port = 0;
  bool new_connection = false;
  // It came over HTTPS: its journal entry then says whether the TLS stream ended with a
  // close_notify after its answer (JournalEntry::close_notify).
  bool tls = false;
};

// A request the server answered itself, before or instead of its handler (RequestHandler::
// refused): what of it the server had read. In a storm these are load too.
struct RefusedRequest {
  int status = 0;
  std::string method;  // empty when the head was never read whole
  std::string path;
  int listener = 0;     // as HttpRequest::listener
  int client_port = 0;  // as HttpRequest::client_port and new_connection
  bool new_connection = false;
};

// How the response (if any) reaches the client.
enum class Delivery {
  respond,   // status, headers and body, as usual
  drop,      // close the connection (FIN) without sending one byte
  reset,     // reset the connection (RST) without sending one byte
  truncate,  // status line, headers and half the body, then FIN
};

struct Decision {
  Delivery delivery = Delivery::respond;
  int status = 200;
  Headers headers;
  std::string body;
  std::string content_type = "application/json";
  // An error's code among the provider's own (error_codes.hpp), whatever status and code a
  // shape sent it as: what the journal records the answer meant. Empty for a success.
  std::string code;
  Millis delay{0};  // hold the connection this long before delivering
  // Set when the request is held in flight (delay-before-commit): after `delay`, the
  // decision to deliver is ProviderCore::complete(*pending_commit, now).
  std::optional<std::uint64_t> pending_commit;
  // The journal entry of the request (0 for a control call, which is not journaled): what
  // an interpreter names when it tells the core what the client did (ProviderCore::abandoned).
  std::uint64_t journal_seq = 0;
  // A body too large to build at once (a long journal): when set, `body` is ignored and
  // the server sends the response chunked, pulling chunks until nullopt. Called on a
  // server thread, after the decision is returned, with no lock held by the server.
  std::function<std::optional<std::string>()> body_chunks;
};

}  // namespace retryproof::provider
