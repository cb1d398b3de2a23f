#include "proxy/upstream_url.hpp"

#include <strings.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace retryproof::proxy {
namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         strncasecmp(text.data(), prefix.data(), prefix.size()) == 0;
}

}  // namespace

std::string UpstreamUrl::authority() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string UpstreamUrl::to_string() const {
  return (tls ? "https://" : "http://") + authority() + base_path;
}

UpstreamUrl parse_upstream_url(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  const auto fail = [&](const std::string& problem) {
    throw std::invalid_argument(quoted + ": " + problem +
                                "; expected http[s]://HOST[:PORT][/BASE-PATH], such as "
                                "http://127.0.0.1:4040");
  };
  UpstreamUrl url;
  url.tls = starts_with_ignoring_case(text, "https://");
  if (!url.tls && !starts_with_ignoring_case(text, "http://")) {
    fail("the URL must begin with http:// or https://");
  }
  url.port = url.tls ? 443 : 80;
  std::string_view rest = text.substr(url.tls ? 8 : 7);
  if (rest.find_first_of("?#") != std::string_view::npos) {
    fail("a query or fragment cannot be forwarded to");
  }
  if (std::any_of(rest.begin(), rest.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; })) {
    fail("spaces and control characters are not allowed");
  }
  const std::size_t slash = std::min(rest.find('/'), rest.size());
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) fail("user information is not supported");

  std::string_view after_host;  // ":PORT", or empty
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) fail("an IPv6 address needs its closing ]");
    url.host = std::string(authority.substr(1, close - 1));
    after_host = authority.substr(close + 1);
  } else {
    const std::size_t colon = std::min(authority.find(':'), authority.size());
    url.host = std::string(authority.substr(0, colon));
    after_host = authority.substr(colon);
  }
  if (url.host.empty()) fail("the host is empty");
  if (!after_host.empty()) {
    if (!after_host.starts_with(':')) fail("expected :PORT after the host");
    const std::string_view digits = after_host.substr(1);
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), url.port);
    if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() ||
        url.port < 1 || url.port > 65535) {
      fail("the port must be a number from 1 to 65535");
    }
  }
  while (path.ends_with('/'))
    path.remove_suffix(1);
  url.base_path = std::string(path);
  return url;
}

}  // namespace retryproof::proxy
