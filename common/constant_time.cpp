#include "common/constant_time.hpp"

#include <openssl/crypto.h>

namespace retryproof {

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  // A length differs openly: the token's length is not the secret, its bytes are.
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace retryproof
