#include "provider/control_plane_guard.hpp"

#include <arpa/inet.h>
#include <strings.h>

#include <array>
#include <charconv>

namespace retryproof::provider {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// "[::1]" is written bracketed in a Host or an Origin, and bare in --host.
std::string_view without_brackets(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host.remove_prefix(1);
    host.remove_suffix(1);
  }
  return host;
}

struct Authority {
  std::string_view host;
  int port = 0;
  bool valid = true;
};

// `default_port` is the scheme's, for an authority that writes none (80, or 443 over TLS).
Authority split_authority(std::string_view authority, int default_port) {
  Authority split{.port = default_port};
  const std::size_t bracket_end = authority.starts_with('[') ? authority.find(']') : 0;
  if (bracket_end == std::string_view::npos) return {.valid = false};
  const std::size_t colon = authority.find(':', bracket_end);
  split.host = authority.substr(0, colon);
  if (colon != std::string_view::npos) {
    const std::string_view digits = authority.substr(colon + 1);
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), split.port);
    split.valid = error == std::errc{} && end == digits.data() + digits.size();
  }
  return split;
}

}  // namespace

bool is_loopback_host(std::string_view host) {
  host = without_brackets(host);
  if (equals_ignoring_case(host, "localhost")) return true;
  const std::string text(host);  // inet_pton wants a terminated string
  std::array<unsigned char, 16> address{};
  if (inet_pton(AF_INET, text.c_str(), address.data()) == 1) return address[0] == 127;
  return inet_pton(AF_INET6, text.c_str(), address.data()) == 1 &&
         address == std::array<unsigned char, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
}

ControlPlaneGuard::ControlPlaneGuard(std::string listen_host, int port, ServedScheme scheme)
    : listen_host_(std::move(listen_host)), port_(port), scheme_(scheme) {}

bool ControlPlaneGuard::is_own_authority(std::string_view authority) const {
  const Authority split = split_authority(authority, scheme_ == ServedScheme::https ? 443 : 80);
  if (!split.valid || split.port != port_) return false;
  return is_loopback_host(split.host) ||
         equals_ignoring_case(without_brackets(split.host), without_brackets(listen_host_));
}

std::optional<ControlPlaneRefusal> ControlPlaneGuard::check(const Headers& headers) const {
  const std::string port = std::to_string(port_);
  const std::string scheme = scheme_ == ServedScheme::https ? "https://" : "http://";
  for (auto [origin, last] = headers.equal_range("Origin"); origin != last; ++origin) {
    const std::string_view value = origin->second;
    if (value.size() < scheme.size() ||
        !equals_ignoring_case(value.substr(0, scheme.size()), scheme) ||
        !is_own_authority(value.substr(scheme.size()))) {
      return ControlPlaneRefusal{
          .code = "forbidden_origin",
          .detail =
              "the control plane refuses requests from web pages (Origin: " + std::string(value) +
              "); it accepts no Origin, or " + scheme + "127.0.0.1:" + port + ", " + scheme +
              "localhost:" + port + " or " + scheme + "[::1]:" + port};
    }
  }
  const auto [host, last] = headers.equal_range("Host");
  const bool one_host = host != last && std::next(host) == last;
  if (!one_host || !is_own_authority(host->second)) {
    return ControlPlaneRefusal{
        .code = "forbidden_host",
        .detail = (one_host ? "the control plane does not answer to Host: " + host->second
                            : std::string("a control-plane request needs exactly one Host")) +
                  "; use 127.0.0.1:" + port + ", localhost:" + port + " or [::1]:" + port +
                  (is_loopback_host(listen_host_) ? "" : " or " + listen_host_ + ":" + port)};
  }
  return std::nullopt;
}

}  // namespace retryproof::provider
