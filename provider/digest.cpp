#include "provider/digest.hpp"

#include <array>

namespace retryproof::provider {
namespace {

// A digit's value by its byte, -1 for a byte that is none: every create and every journal
// entry converts a fingerprint, so a lookup rather than three comparisons a digit.
constexpr std::array<signed char, 256> kHexValues = [] {
  std::array<signed char, 256> values{};
  values.fill(-1);
  for (int i = 0; i < 10; ++i)
    values['0' + i] = static_cast<signed char>(i);
  for (int i = 0; i < 6; ++i) {
    values['a' + i] = static_cast<signed char>(10 + i);
    values['A' + i] = static_cast<signed char>(10 + i);
  }
  return values;
}();

int hex_value(char c) {
  return kHexValues[static_cast<unsigned char>(c)];
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
