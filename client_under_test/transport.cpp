#include "client_under_test/transport.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace retryproof::client {

std::string to_string(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::none:
      return "none";
    case TransportFailure::not_sent:
      return "not-sent";
    case TransportFailure::timeout:
      return "timeout";
    case TransportFailure::closed:
      return "closed";
    case TransportFailure::truncated:
      return "truncated";
  }
  return "none";
}

std::string TransportResponse::header(const std::string& lower_case_name) const {
  const auto found = headers.find(lower_case_name);
  return found == headers.end() ? std::string() : found->second;
}

void TransportResponse::set_header(const std::string& name, const std::string& value) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  headers[lower] = value;
}

std::string percent_encode(const std::string& text) {
  std::string encoded;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      encoded.push_back(c);
    } else {
      char escape[4];
      std::snprintf(escape, sizeof(escape), "%%%02X", byte);
      encoded += escape;
    }
  }
  return encoded;
}

std::string percent_decode(const std::string& text) {
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string decoded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      decoded.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      decoded.push_back(text[i]);
    }
  }
  return decoded;
}

}  // namespace retryproof::client
