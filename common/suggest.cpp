#include "common/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace retryproof {
namespace {

// Levenshtein distance, case-insensitive.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> closest(std::string_view typed,
                                   const std::vector<std::string>& candidates) {
  // A word cut short ("lookup" for "lookup-first") names the one candidate it begins.
  if (typed.size() >= 3) {
    std::optional<std::string> only;
    int found = 0;
    for (const std::string& candidate : candidates) {
      if (candidate.size() > typed.size() &&
          distance(typed, candidate.substr(0, typed.size())) == 0) {
        only = candidate;
        ++found;
      }
    }
    if (found == 1) return only;
  }
  const std::size_t allowed = std::max<std::size_t>(1, (typed.size() + 2) / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t d = distance(typed, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const auto suggestion = closest(typed, candidates);
  return suggestion ? " (did you mean \"" + *suggestion + "\"?)" : "";
}

}  // namespace retryproof
