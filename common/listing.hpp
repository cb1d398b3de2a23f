// A list cut short for a report line: "a, b, c and 7 more". Traffic names thousands of
// operations and seqs; a line names the first few and counts the rest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace retryproof {

// The first `shown` of `items`, joined by ", ", then " and N more" for the rest.
inline std::string first_of(const std::vector<std::string>& items, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < std::min(items.size(), shown); ++i)
    text += (i == 0 ? "" : ", ") + items[i];
  if (items.size() > shown) text += " and " + std::to_string(items.size() - shown) + " more";
  return text;
}

}  // namespace retryproof
