#include "common/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace retryproof {
namespace {

bool same_letter(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

// Edits between two words, case-insensitive: insertions, deletions, substitutions and swaps of
// two neighbours (optimal string alignment), because a swap ("rnu" for "run") is one slip of
// the fingers, not two.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = same_letter(a[i - 1], b[j - 1]);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) && same_letter(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
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
