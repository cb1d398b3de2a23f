// Deterministic job ids: the same seed and the same sequence of new operations give the
// same ids, on every machine and standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/splitmix64.hpp"

namespace retryproof::provider {

// A job id as clients see it: the shape's prefix and the value's 8 lower-case hex digits
// ("job_1a2b3c4d"). Stores hold the value and render the text on output.
std::string job_id_text(std::string_view prefix, std::uint32_t value);
// The value of an id of exactly that form, else nothing (an upstream's id, at the proxy).
std::optional<std::uint32_t> job_id_value(std::string_view id, std::string_view prefix);

// The 32-bit values issued so far, in an open-addressed table: 4 to 8 bytes a value where a
// node-based set spends about 40 (issue #14).
class IssuedValues {
 public:
  bool insert(std::uint32_t value);  // false when it was issued already
  std::size_t size() const { return size_; }

 private:
  void grow();

  std::vector<std::uint32_t> slots_;  // slot holds value + 1; 0 is empty
  bool has_max_ = false;              // UINT32_MAX, the one value value + 1 cannot hold
  std::size_t size_ = 0;
};

class JobIdGenerator {
 public:
  explicit JobIdGenerator(std::uint64_t seed) : random_(seed) {}

  // The prefix and 8 lower-case hex digits ("job_1a2b3c4d"), never the same twice from one
  // generator.
  std::string next(std::string_view prefix = "job_");

 private:
  SplitMix64 random_;
  IssuedValues issued_;
};

}  // namespace retryproof::provider
