#include "provider/job_ids.hpp"

#include <array>
#include <cstdio>

namespace retryproof::provider {

std::string JobIdGenerator::next(std::string_view prefix) {
  // 32 bits collide by the birthday bound after tens of thousands of jobs; skipping an
  // id already issued keeps ids unique and still a pure function of the seed.
  std::uint32_t value = 0;
  do {
    value = static_cast<std::uint32_t>(random_.next() >> 32);
  } while (!issued_.insert(value).second);
  std::array<char, 16> hex{};
  std::snprintf(hex.data(), hex.size(), "%08x", value);
  return std::string(prefix) + hex.data();
}

}  // namespace retryproof::provider
