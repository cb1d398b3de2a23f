// The delivery plan: every event twice, each duplicate of one of the three kinds, the same
// sequence for the same seed.
#include "deliver/delivery_plan.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace retryproof::deliver {
namespace {

// Where each delivery stands in the sequence: (step, position in the step) by (event, copy).
std::map<std::pair<std::size_t, int>, std::size_t> step_of(const DeliveryPlan& plan) {
  std::map<std::pair<std::size_t, int>, std::size_t> steps;
  for (std::size_t step = 0; step < plan.steps.size(); ++step) {
    for (const Delivery& delivery : plan.steps[step].deliveries)
      steps.emplace(std::pair{delivery.event, delivery.copy}, step);
  }
  return steps;
}

TEST(DeliveryPlan, EveryEventIsDeliveredTwiceEachDuplicateAsItsKindSays) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const std::size_t events = 7;
    const DeliveryPlan plan = plan_deliveries(events, seed);
    const auto steps = step_of(plan);
    ASSERT_EQ(steps.size(), 2 * events) << "seed " << seed;
    for (std::size_t event = 0; event < events; ++event) {
      const std::size_t first = steps.at({event, 1});
      const std::size_t second = steps.at({event, 2});
      switch (plan.duplicate_of_event[event]) {
        case Duplicate::concurrent:
          EXPECT_EQ(first, second) << "one step: both in flight at once";
          EXPECT_EQ(plan.steps[first].deliveries.size(), 2u);
          break;
        case Duplicate::sequential:
          EXPECT_EQ(second, first + 1) << "right after the first was answered";
          break;
        case Duplicate::out_of_order:
          ASSERT_LT(event + 1, events) << "the last event is never the late one";
          EXPECT_GT(second, steps.at({event + 1, 1})) << "after the next event's delivery";
          break;
      }
      if (event > 0) {
        EXPECT_GT(first, steps.at({event - 1, 1})) << "first deliveries in order";
      }
    }
  }
}

TEST(DeliveryPlan, ThreeEventsOrMoreSeeAllThreeKindsAndTheSeedDecidesWhichGetsWhich) {
  std::set<std::vector<Duplicate>> assignments;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const DeliveryPlan plan = plan_deliveries(3, seed);
    const std::set<Duplicate> kinds(plan.duplicate_of_event.begin(), plan.duplicate_of_event.end());
    EXPECT_EQ(kinds.size(), 3u) << "seed " << seed;
    assignments.insert(plan.duplicate_of_event);
  }
  EXPECT_GT(assignments.size(), 1u) << "seeds differ";
}

TEST(DeliveryPlan, TheSameSeedGivesTheSameSequence) {
  const auto flat = [](const DeliveryPlan& plan) {
    std::vector<std::pair<std::size_t, int>> sequence;
    for (const auto& step : plan.steps) {
      for (const auto& delivery : step.deliveries)
        sequence.emplace_back(delivery.event, delivery.copy);
    }
    return sequence;
  };
  EXPECT_EQ(flat(plan_deliveries(12, 42)), flat(plan_deliveries(12, 42)));
  EXPECT_EQ(plan_deliveries(12, 42).duplicate_of_event, plan_deliveries(12, 42).duplicate_of_event);
}

TEST(DeliveryPlan, ALoneEventIsRedeliveredSequentially) {
  const DeliveryPlan plan = plan_deliveries(1, 9);
  EXPECT_EQ(plan.duplicate_of_event, std::vector<Duplicate>{Duplicate::sequential});
  ASSERT_EQ(plan.steps.size(), 2u);
}

}  // namespace
}  // namespace retryproof::deliver
