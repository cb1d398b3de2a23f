// Bytes held in one allocation of exactly their size plus a 4-byte length: 8 bytes where a
// std::string is 32, for the many small texts the provider keeps per key (keys, job
// bodies). Empty bytes allocate nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace retryproof::provider {

class CompactBytes {
 public:
  CompactBytes() = default;
  explicit CompactBytes(std::string_view text) {
    if (text.empty()) return;
    if (text.size() > UINT32_MAX) throw std::length_error("compact bytes hold up to 4 GiB");
    const auto length = static_cast<std::uint32_t>(text.size());
    data_ = std::make_unique_for_overwrite<char[]>(sizeof length + text.size());
    std::memcpy(data_.get(), &length, sizeof length);
    std::memcpy(data_.get() + sizeof length, text.data(), text.size());
  }

  std::string_view view() const {
    if (!data_) return {};
    std::uint32_t length = 0;
    std::memcpy(&length, data_.get(), sizeof length);
    return {data_.get() + sizeof length, length};
  }
  bool empty() const { return !data_; }

 private:
  std::unique_ptr<char[]> data_;
};

static_assert(sizeof(CompactBytes) == 8);

}  // namespace retryproof::provider
