#include "provider/job_ids.hpp"

#include <array>
#include <cstdio>

namespace retryproof::provider {

std::string job_id_text(std::string_view prefix, std::uint32_t value) {
  std::array<char, 16> hex{};
  std::snprintf(hex.data(), hex.size(), "%08x", value);
  return std::string(prefix) + hex.data();
}

std::optional<std::uint32_t> job_id_value(std::string_view id, std::string_view prefix) {
  constexpr std::size_t kDigits = 8;
  if (id.size() != prefix.size() + kDigits || !id.starts_with(prefix)) return std::nullopt;
  std::uint32_t value = 0;
  for (const char c : id.substr(prefix.size())) {
    // Lower case only: an id with upper-case digits is not one this provider wrote, and
    // must read back as it came.
    const bool digit = c >= '0' && c <= '9';
    if (!digit && (c < 'a' || c > 'f')) return std::nullopt;
    value = value * 16 + static_cast<std::uint32_t>(digit ? c - '0' : c - 'a' + 10);
  }
  return value;
}

bool IssuedValues::insert(std::uint32_t value) {
  if (value == UINT32_MAX) {
    if (has_max_) return false;
    has_max_ = true;
    ++size_;
    return true;
  }
  if ((size_ + 1) * 2 > slots_.size()) grow();  // at most half full: probes stay short
  const std::uint32_t stored = value + 1;
  const std::size_t mask = slots_.size() - 1;
  // Ids are SplitMix64 output, already uniform: the value itself is a good hash.
  for (std::size_t slot = value & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot] == stored) return false;
    if (slots_[slot] == 0) {
      slots_[slot] = stored;
      ++size_;
      return true;
    }
  }
}

void IssuedValues::grow() {
  std::vector<std::uint32_t> old(slots_.empty() ? 16 : slots_.size() * 2, 0);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (const std::uint32_t stored : old) {
    if (stored == 0) continue;
    std::size_t slot = (stored - 1) & mask;
    while (slots_[slot] != 0)
      slot = (slot + 1) & mask;
    slots_[slot] = stored;
  }
}

std::string JobIdGenerator::next(std::string_view prefix) {
  // 32 bits collide by the birthday bound after tens of thousands of jobs; skipping an
  // id already issued keeps ids unique and still a pure function of the seed.
  std::uint32_t value = 0;
  do {
    value = static_cast<std::uint32_t>(random_.next() >> 32);
  } while (!issued_.insert(value));
  return job_id_text(prefix, value);
}

}  // namespace retryproof::provider
