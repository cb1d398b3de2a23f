// The control plane (/_test/) answers scripts, not web pages. A browser visiting a
// hostile page can be made to send requests to loopback: as a cross-site POST (it then
// sends an Origin naming the page) or, after DNS rebinding, under the attacker's name
// (it then sends that name as Host). Both are refused before the core sees them. Scripts
// and HTTP libraries send no Origin and the address they connect to as Host; the server's
// own page (GET /_test/ui) sends its own origin, in the scheme the server serves.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "provider/http_types.hpp"

namespace retryproof::provider {

// 127.0.0.0/8, ::1 and "localhost", the forms that can only mean this machine.
bool is_loopback_host(std::string_view host);

// What a server serves: its own page's origin is http://… or https://…, never both.
enum class ServedScheme { http, https };

struct ControlPlaneRefusal {
  int status = 403;
  std::string code;    // forbidden_origin or forbidden_host
  std::string detail;  // what was refused, and what is accepted
};

class ControlPlaneGuard {
 public:
  // `listen_host` is the address the server listens on: when it is not loopback, clients
  // reach it by that name too, and it is accepted beside the loopback names. An Origin is
  // accepted in `scheme` only: over TLS a page's origin is https://, and an http:// one
  // names another server (or a downgraded page) on the same port.
  ControlPlaneGuard(std::string listen_host, int port, ServedScheme scheme);

  // Why a control-plane request with these headers is refused, or nothing.
  std::optional<ControlPlaneRefusal> check(const Headers& headers) const;

 private:
  // Whether an authority ("localhost:4040", "[::1]:4040") names this server.
  bool is_own_authority(std::string_view authority) const;

  std::string listen_host_;
  int port_;
  ServedScheme scheme_;
};

}  // namespace retryproof::provider
