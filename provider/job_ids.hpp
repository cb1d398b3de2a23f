// Deterministic job ids: the same seed and the same sequence of new operations give the
// same ids, on every machine and standard library.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

namespace retryproof::provider {

// SplitMix64: tiny, well-distributed, and fully specified, unlike the standard
// distributions whose output differs between library implementations.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

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
