// Durations as people write them in plans and control calls: 250ms, 3s, 2m, 25h.
#pragma once

#include <string>
#include <string_view>

#include "common/millis.hpp"

namespace retryproof {

// A whole number followed by ms, s, m or h. Throws std::invalid_argument that quotes the
// text and shows the accepted forms.
Millis parse_duration(std::string_view text);

// The shortest exact spelling: 120000ms is "2m", 1500ms is "1500ms".
std::string format_duration(Millis duration);

}  // namespace retryproof
