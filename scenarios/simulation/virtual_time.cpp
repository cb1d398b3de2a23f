#include "scenarios/simulation/virtual_time.hpp"

#include <algorithm>

namespace retryproof::scenarios {

void Timeline::pass_until(Millis until) {
  // Each commit at its own due time: the provider records when it happened, whatever the
  // clock says when it is told.
  while (!held_.empty() && held_.begin()->first <= until) {
    const auto [due, pending_commit] = *held_.begin();
    held_.erase(held_.begin());
    provider_.complete(pending_commit, due);
  }
  clock_.advance(std::max(Millis(0), until - clock_.now()));
}

void Timeline::settle() {
  if (!held_.empty()) pass_until(held_.rbegin()->first);
}

}  // namespace retryproof::scenarios
