// What `retryproof deliver` sends, and in which order: every event once, and each event
// once more in one of the ways real webhook providers duplicate deliveries. A pure function
// of the number of events and the seed, so the same seed sends the same sequence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace retryproof::deliver {

enum class Duplicate {
  sequential,    // redelivered after the first delivery got its answer (a lost acknowledgement)
  concurrent,    // two deliveries in flight at once: the race a check-then-set loses
  out_of_order,  // redelivered late, after the next event's delivery
};

struct DuplicateRow {
  Duplicate kind;
  std::string_view name;  // "sequential", "concurrent", "out-of-order"
  std::string_view what;  // in words, for help and docs
};
const std::vector<DuplicateRow>& duplicate_catalogue();
const DuplicateRow& row_of(Duplicate kind);

struct Delivery {
  std::size_t event = 0;  // index into the events
  int copy = 1;           // 1 for the first delivery of the event, 2 for its duplicate
};

// One delivery, or two sent together and in flight at once; steps run one after another.
struct DeliveryStep {
  std::vector<Delivery> deliveries;
};

struct DeliveryPlan {
  std::vector<Duplicate> duplicate_of_event;  // by event index
  std::vector<DeliveryStep> steps;
};

// Each event's duplicate is drawn from a seeded shuffle of the three kinds in turn, so that
// three or more events see all three; the last event is never the late one (there is no
// later event for it to arrive after). A lone event is redelivered sequentially.
DeliveryPlan plan_deliveries(std::size_t events, std::uint64_t seed);

}  // namespace retryproof::deliver
