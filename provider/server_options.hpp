// How the provider's HTTP server listens, and the limits it holds every client to. The
// defaults are documented in docs/provider.md; `retryproof provider` exposes the ones a
// user may need to change as flags.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/millis.hpp"
#include "common/time_scale.hpp"
#include "provider/tls_identity.hpp"

namespace retryproof::provider {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 4040;          // 0 picks a free port
  std::size_t workers = 2;  // I/O threads; a delayed request holds none of them

  // Connections beyond max_connections get a 503 capacity_exhausted at once. A few more
  // are reserved for the control plane: a request on one of them is served only if its
  // path starts with /_test/, so the harness can always inspect and reset the provider.
  std::size_t max_connections = 1024;
  std::size_t reserved_control_connections = 8;

  // Deadlines. A connection with no request in progress is closed after idle_timeout;
  // a request's head must be complete header_timeout after its first byte, its body
  // body_timeout after the head (else 408); a response that cannot be written for
  // write_timeout is abandoned.
  Millis idle_timeout{5'000};
  Millis header_timeout{10'000};
  Millis body_timeout{30'000};
  Millis write_timeout{10'000};

  // What a request head may hold: a longer request line is a 414, more fields or bytes a
  // 431. The body limit is ProviderConfig::max_body_bytes (413).
  std::size_t max_request_line_bytes = 8 * 1024;
  std::size_t max_header_fields = 100;
  std::size_t max_header_bytes = 16 * 1024;  // the whole head, request line included

  // The provider's clock (the journal's times, key expiry) runs this many times faster than
  // real time, and a hold lasts a Nth as long (`run --time-scale`). The deadlines above
  // protect the server, not a scenario, and stay in real time.
  TimeScale time_scale;
  // The clock reads 0 until the first request arrives, and starts then: a fleet's outage
  // windows are scenario time from its first request, as in the simulation, not from the
  // server's start. Otherwise starting client processes, which takes real time (hundreds of
  // milliseconds on a busy machine), would eat N times as much of an outage at scale N.
  bool clock_starts_at_first_request = false;

  // Set: the server speaks HTTPS (TLS 1.2 and 1.3) with this certificate and key, and
  // nothing else on its port. Empty: plain HTTP.
  std::optional<TlsIdentity> tls;
};

}  // namespace retryproof::provider
