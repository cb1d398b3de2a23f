// Deterministic job ids: the same seed and the same sequence of new operations give the
// same ids, on every machine and standard library.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "common/splitmix64.hpp"

namespace retryproof::provider {

class JobIdGenerator {
 public:
  explicit JobIdGenerator(std::uint64_t seed) : random_(seed) {}

  // "job_" and 8 lower-case hex digits, never the same twice from one generator.
  std::string next();

 private:
  SplitMix64 random_;
  std::unordered_set<std::uint32_t> issued_;
};

}  // namespace retryproof::provider
