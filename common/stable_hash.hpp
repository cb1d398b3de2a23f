// FNV-1a: a hash of text that is the same on every platform and standard library
// (std::hash is not), for seeded choices that must replay anywhere.
#pragma once

#include <cstdint>
#include <string_view>

namespace retryproof {

inline std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace retryproof
