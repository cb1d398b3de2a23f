#include "deliver/delivery_plan.hpp"

#include <algorithm>
#include <cassert>
#include <optional>
#include <stdexcept>

#include "common/splitmix64.hpp"

namespace retryproof::deliver {

const std::vector<DuplicateRow>& duplicate_catalogue() {
  static const std::vector<DuplicateRow> rows = {
      {Duplicate::sequential, "sequential",
       "sent again after the first delivery got its answer, as a provider does when the "
       "acknowledgement was lost"},
      {Duplicate::concurrent, "concurrent",
       "sent twice at once, both in flight together: the race an application-level "
       "check-then-set loses and a unique-constraint insert wins"},
      {Duplicate::out_of_order, "out-of-order", "sent again late, after the next event's delivery"},
  };
  return rows;
}

const DuplicateRow& row_of(Duplicate kind) {
  for (const DuplicateRow& row : duplicate_catalogue()) {
    if (row.kind == kind) return row;
  }
  throw std::logic_error("a duplicate kind without a row");
}

DeliveryPlan plan_deliveries(std::size_t events, std::uint64_t seed) {
  DeliveryPlan plan;
  const auto& kinds = duplicate_catalogue();
  for (std::size_t i = 0; i < events; ++i)
    plan.duplicate_of_event.push_back(kinds[i % kinds.size()].kind);
  SplitMix64 random(seed);
  for (std::size_t i = events; i > 1; --i)  // Fisher-Yates, with SplitMix64's draws
    std::swap(plan.duplicate_of_event[i - 1], plan.duplicate_of_event[random.next() % i]);

  // The kinds go round in turn, so with an out-of-order one among three or more events at
  // least two others come before the last: the first of them takes the last one's place.
  auto& duplicates = plan.duplicate_of_event;
  if (!duplicates.empty() && duplicates.back() == Duplicate::out_of_order) {
    const auto other = std::find_if(duplicates.begin(), duplicates.end() - 1,
                                    [](Duplicate kind) { return kind != Duplicate::out_of_order; });
    assert(other != duplicates.end() - 1);
    std::swap(*other, duplicates.back());
  }

  std::optional<std::size_t> late;  // an out-of-order duplicate waiting for the next event
  for (std::size_t event = 0; event < events; ++event) {
    if (duplicates[event] == Duplicate::concurrent) {
      plan.steps.push_back({{{event, 1}, {event, 2}}});
    } else {
      plan.steps.push_back({{{event, 1}}});
    }
    if (duplicates[event] == Duplicate::sequential) plan.steps.push_back({{{event, 2}}});
    if (late) plan.steps.push_back({{{*late, 2}}});
    late.reset();
    if (duplicates[event] == Duplicate::out_of_order) late = event;
  }
  return plan;
}

}  // namespace retryproof::deliver
