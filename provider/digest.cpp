#include "provider/digest.hpp"

namespace retryproof::provider {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Digest Digest::from_hex(std::string_view hex) {
  Digest digest;
  if (hex.size() != 2 * digest.bytes.size()) return {};
  for (std::size_t i = 0; i < digest.bytes.size(); ++i) {
    const int high = hex_value(hex[2 * i]);
    const int low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) return {};
    digest.bytes[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return digest;
}

std::string Digest::to_hex() const {
  constexpr std::string_view kDigits = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (const unsigned char byte : bytes) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0xf]);
  }
  return hex;
}

}  // namespace retryproof::provider
