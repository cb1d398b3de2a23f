// The deliverer over real sockets, against a tiny receiver: every event arrives twice with
// its id, its copy and its signature; steps arrive in the plan's order; and a concurrent
// duplicate is in flight together with its twin, which the receiver proves by holding the
// first copy until the second has arrived.
#include "deliver/deliverer.hpp"

#include <gtest/gtest.h>

#include <map>

#include "deliver/signature.hpp"
#include "deliver/tests/webhook_receiver.hpp"

namespace retryproof::deliver {
namespace {

using testing::Arrival;
using testing::WebhookReceiver;
using namespace std::chrono_literals;

std::vector<Event> some_events(int count) {
  std::vector<Event> events;
  for (int i = 1; i <= count; ++i) {
    const std::string id = "evt_" + std::to_string(i);
    events.push_back(
        {id, R"({"id":")" + id + R"(","orderId":"order-)" + std::to_string(i) + "\"}"});
  }
  return events;
}

DeliverOptions options_for(const WebhookReceiver& receiver, std::string secret = "") {
  return {.target = parse_target(receiver.url()), .secret = std::move(secret), .timeout = 10000ms};
}

TEST(Deliverer, EveryEventArrivesTwiceWithItsIdItsCopyAndItsSignature) {
  WebhookReceiver receiver;
  const auto events = some_events(5);
  const DeliveryPlan plan = plan_deliveries(events.size(), 3);
  const auto results = deliver_all(events, plan, options_for(receiver, "s3cret"));

  ASSERT_EQ(results.size(), 10u);
  for (const DeliveryResult& result : results)
    EXPECT_TRUE(result.acknowledged());
  std::map<std::string, std::vector<int>> copies;
  for (const Arrival& arrival : receiver.arrivals()) {
    copies[arrival.event_id].push_back(arrival.copy);
    const auto event = std::find_if(events.begin(), events.end(),
                                    [&](const Event& e) { return e.id == arrival.event_id; });
    ASSERT_NE(event, events.end()) << arrival.event_id;
    EXPECT_EQ(arrival.body, event->body) << "the exact bytes that were signed";
    EXPECT_EQ(arrival.signature, "sha256=" + hmac_sha256_hex("s3cret", event->body));
  }
  ASSERT_EQ(copies.size(), 5u);
  for (auto& [id, seen] : copies) {
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<int>{1, 2})) << id;
  }
}

TEST(Deliverer, WithoutASecretNothingIsSigned) {
  WebhookReceiver receiver;
  deliver_all(some_events(1), plan_deliveries(1, 0), options_for(receiver));
  for (const Arrival& arrival : receiver.arrivals())
    EXPECT_EQ(arrival.signature, "");
}

TEST(Deliverer, StepsArriveInThePlansOrder) {
  WebhookReceiver receiver;
  const auto events = some_events(6);
  const DeliveryPlan plan = plan_deliveries(events.size(), 11);
  deliver_all(events, plan, options_for(receiver));

  std::map<std::pair<std::string, int>, std::size_t> order;
  for (const Arrival& arrival : receiver.arrivals())
    order[{arrival.event_id, arrival.copy}] = arrival.order;
  ASSERT_EQ(order.size(), 12u);
  for (std::size_t step = 1; step < plan.steps.size(); ++step) {
    for (const Delivery& before : plan.steps[step - 1].deliveries) {
      for (const Delivery& after : plan.steps[step].deliveries) {
        EXPECT_LT((order[{events[before.event].id, before.copy}]),
                  (order[{events[after.event].id, after.copy}]))
            << "step " << step - 1 << " before step " << step;
      }
    }
  }
}

TEST(Deliverer, AConcurrentDuplicateIsInFlightTogetherWithItsTwin) {
  const auto events = some_events(3);
  const DeliveryPlan plan = plan_deliveries(events.size(), 5);
  std::string concurrent;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (plan.duplicate_of_event[i] == Duplicate::concurrent) concurrent = events[i].id;
  }
  ASSERT_FALSE(concurrent.empty()) << "three events see all three kinds";

  // The concurrent event's first copy is held until its second has arrived: answered 200
  // only if both were in flight together. So is a sequential one's, briefly, to show that
  // the hold tells them apart: its second copy is sent only after the first is answered.
  std::string sequential;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (plan.duplicate_of_event[i] == Duplicate::sequential) sequential = events[i].id;
  }
  WebhookReceiver receiver([&](const Arrival& arrival, WebhookReceiver& self) {
    if (arrival.copy != 1) return 200;
    if (arrival.event_id == concurrent) return self.wait_for_copies(concurrent, 2, 20s) ? 200 : 503;
    if (arrival.event_id == sequential)
      return self.wait_for_copies(sequential, 2, 200ms) ? 200 : 503;
    return 200;
  });
  const auto results = deliver_all(events, plan, options_for(receiver));
  for (const DeliveryResult& result : results) {
    const std::string& id = events[result.delivery.event].id;
    const bool held_alone = id == sequential && result.delivery.copy == 1;
    EXPECT_EQ(result.response.status, held_alone ? 503 : 200)
        << id << " copy " << result.delivery.copy;
  }
}

TEST(Deliverer, AnythingButA2xxIsNotAnAcknowledgement) {
  WebhookReceiver receiver(
      [](const Arrival& arrival, WebhookReceiver&) { return arrival.copy == 1 ? 500 : 204; });
  const auto results = deliver_all(some_events(1), plan_deliveries(1, 0), options_for(receiver));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_FALSE(results[0].acknowledged());
  EXPECT_TRUE(results[1].acknowledged());

  const DeliverOptions nobody{.target = parse_target("http://127.0.0.1:1/webhooks")};
  const auto refused = deliver_all(some_events(1), plan_deliveries(1, 0), nobody);
  EXPECT_FALSE(refused[0].acknowledged());
  EXPECT_EQ(refused[0].response.failure, client::TransportFailure::not_sent);
}

TEST(Target, IsAnHttpUrlSplitIntoItsBaseAndPath) {
  EXPECT_EQ(parse_target("http://127.0.0.1:8080/hooks/orders").base_url, "http://127.0.0.1:8080");
  EXPECT_EQ(parse_target("http://127.0.0.1:8080/hooks/orders").path, "/hooks/orders");
  EXPECT_EQ(parse_target("http://localhost:9").path, "/");
  EXPECT_THROW(parse_target("127.0.0.1:8080/hooks"), std::invalid_argument);
  EXPECT_THROW(parse_target("http://"), std::invalid_argument);
}

}  // namespace
}  // namespace retryproof::deliver
