// Where the proxy sends the data plane: `--upstream http[s]://HOST[:PORT][/BASE-PATH]`.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::proxy {

struct UpstreamUrl {
  std::string host;       // a name or an address; an IPv6 address without its brackets
  bool tls = false;       // https://: the certificate is verified (upstream_tls.hpp)
  int port = 80;          // 443 for https:// when the URL names none
  std::string base_path;  // prefixed to every forwarded target; empty, or "/v1" (no final /)

  // "127.0.0.1:4040", "[::1]:4040": the Host header the upstream is sent.
  std::string authority() const;
  std::string to_string() const;  // "http://127.0.0.1:4040/v1", "https://...
};

// Throws std::invalid_argument saying what is wrong and what is accepted.
UpstreamUrl parse_upstream_url(std::string_view text);

}  // namespace retryproof::proxy
