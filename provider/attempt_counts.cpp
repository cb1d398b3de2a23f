#include "provider/attempt_counts.hpp"

#include <string_view>
#include <unordered_set>

namespace retryproof::provider {

std::uint64_t AttemptCounts::next(const std::string& key) {
  const auto [found, inserted] = counts_.try_emplace(key, 0);
  if (inserted && bound_) {
    order_.push_back(key);
    // Forget the oldest until the bound holds. order_ may also name keys forgotten since (a
    // job freed for room) and, twice, a key counted again after that: whenever it grows past
    // twice the bound it is rebuilt from the live keys, each once, in its latest place.
    while (counts_.size() > *bound_ && !order_.empty()) {
      const std::string oldest = std::move(order_.front());
      order_.pop_front();
      if (oldest != key) counts_.erase(oldest);
    }
    if (order_.size() > 2 * *bound_) {
      std::deque<std::string> live;
      std::unordered_set<std::string_view> seen;
      for (auto counted = order_.rbegin(); counted != order_.rend(); ++counted) {
        if (counts_.contains(*counted) && seen.insert(*counted).second) live.push_front(*counted);
      }
      order_ = std::move(live);
    }
  }
  return found->second++;
}

void AttemptCounts::clear() {
  counts_.clear();
  order_.clear();
}

}  // namespace retryproof::provider
