// Where the proxy sends the data plane: `--upstream http://HOST[:PORT][/BASE-PATH]`.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::proxy {

struct UpstreamUrl {
  std::string host;  // a name or an address; an IPv6 address without its brackets
  int port = 80;
  std::string base_path;  // prefixed to every forwarded target; empty, or "/v1" (no final /)

  // "127.0.0.1:4040", "[::1]:4040": the Host header the upstream is sent.
  std::string authority() const;
  std::string to_string() const;  // "http://127.0.0.1:4040/v1"
};

// Throws std::invalid_argument saying what is wrong and what is accepted.
UpstreamUrl parse_upstream_url(std::string_view text);

}  // namespace retryproof::proxy
