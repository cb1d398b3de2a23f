// Comparing secrets without telling a caller, by the time it takes, how much of a guess
// was right.
#pragma once

#include <string_view>

namespace retryproof {

// Whether the two are equal, in a time that depends on their lengths only (OpenSSL's
// CRYPTO_memcmp).
bool equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace retryproof
