// A window of scenario time in which the provider fails every request: an entry of a plan's
// "outages". Its own header because the result of a run carries the windows too, for the
// reports to mark on the fleet's load (run_result.hpp), and the evidence reads them.
#pragma once

#include "common/millis.hpp"

namespace retryproof::scenarios {

struct OutageWindow {
  Millis from{0};
  Millis until{0};  // the first moment after it
  // Whether it fails every request it meets (no brownout's share, no slowdown): where retrying
  // no longer helps, and a breaker must stop an instance's creates.
  bool total = true;

  bool holds(Millis at) const { return at >= from && at < until; }

  friend bool operator==(const OutageWindow&, const OutageWindow&) = default;
};

}  // namespace retryproof::scenarios
