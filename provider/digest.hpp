// A payload fingerprint (lower-case hex SHA-256, common/fingerprint.hpp) held as its 32
// bytes rather than its 64-character text.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace retryproof::provider {

struct Digest {
  std::array<unsigned char, 32> bytes{};

  // Text that is not 64 hex digits gives the zero digest, which no payload has.
  static Digest from_hex(std::string_view hex);
  std::string to_hex() const;  // lower case, as fingerprints are written
  friend bool operator==(const Digest&, const Digest&) = default;
};

}  // namespace retryproof::provider
