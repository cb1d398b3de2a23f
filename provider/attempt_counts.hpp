// How many times each key has been tried, for a chaos plan that draws its faults by the
// n-th attempt of a key. With a bound (--max-keys), the counts of at most that many keys are
// kept: past it, the key counted longest ago is forgotten, and its next attempt draws as a
// first one. A key that never stores a job (its creates all failed before commit, or its
// lookups all missed) would otherwise cost memory for the life of the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>

namespace retryproof::provider {

class AttemptCounts {
 public:
  explicit AttemptCounts(std::optional<std::size_t> bound = std::nullopt) : bound_(bound) {}

  // The number of earlier attempts of `key` (0 the first time), and one more counted.
  std::uint64_t next(const std::string& key);
  void forget(const std::string& key) { counts_.erase(key); }
  bool contains(const std::string& key) const { return counts_.contains(key); }
  void clear();
  std::size_t size() const { return counts_.size(); }

 private:
  std::optional<std::size_t> bound_;
  std::unordered_map<std::string, std::uint64_t> counts_;
  std::deque<std::string> order_;  // keys in the order first counted; may name forgotten ones
};

// A set of keys under the same bound, the oldest forgotten first: the proxy's memory of the
// job ids it has seen, to tell a new job from a replayed one.
class BoundedKeySet {
 public:
  explicit BoundedKeySet(std::optional<std::size_t> bound = std::nullopt) : counts_(bound) {}

  void insert(const std::string& key) { counts_.next(key); }
  bool contains(const std::string& key) const { return counts_.contains(key); }
  void clear() { counts_.clear(); }
  std::size_t size() const { return counts_.size(); }

 private:
  AttemptCounts counts_;  // the bound's bookkeeping; the counts themselves are never read
};

}  // namespace retryproof::provider
