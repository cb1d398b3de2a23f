// Deterministic job ids: the same seed and the same sequence of new operations give the
// same ids, on every machine and standard library.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "common/splitmix64.hpp"

namespace retryproof::provider {

class JobIdGenerator {
 public:
  explicit JobIdGenerator(std::uint64_t seed) : random_(seed) {}

  // The prefix and 8 lower-case hex digits ("job_1a2b3c4d"), never the same twice from one
  // generator.
  std::string next(std::string_view prefix = "job_");

 private:
  SplitMix64 random_;
  std::unordered_set<std::uint32_t> issued_;
};

}  // namespace retryproof::provider
