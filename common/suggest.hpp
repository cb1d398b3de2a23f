// "Did you mean ...?": the known word closest to a typo, for errors that say what to fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace retryproof {

// The one candidate that `typed` begins (a word cut short), or else the candidate within a
// small edit distance of it (about a third of its length); nothing when none is close.
std::optional<std::string> closest(std::string_view typed,
                                   const std::vector<std::string>& candidates);

// " (did you mean \"X\"?)" or "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace retryproof
