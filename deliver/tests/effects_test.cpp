// The story of inbound duplicates, end to end over real sockets: `deliver` sends events to
// a small webhook service, the service calls a provider for each event it handles, and
// judge counts the service's outbound effects per event id in the provider's journal. A
// service that checks "seen?" and then records it loses the race of a concurrent duplicate
// and makes two effects; one that claims the event id in one atomic step makes one, however
// often the event arrives.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "client_under_test/http_transport.hpp"
#include "deliver/deliverer.hpp"
#include "deliver/tests/webhook_receiver.hpp"
#include "provider/provider_server.hpp"
#include "scenarios/judge/traffic.hpp"

namespace retryproof::deliver {
namespace {

using testing::Arrival;
using testing::WebhookReceiver;
using namespace std::chrono_literals;

std::vector<Event> order_events() {
  std::vector<Event> events;
  for (int i = 1; i <= 3; ++i) {
    const std::string n = std::to_string(i);
    events.push_back({"evt_" + n, R"({"id":"evt_)" + n + R"(","orderId":"order-)" + n + "\"}"});
  }
  return events;
}

// The webhook service under test: for each event it handles, one POST /jobs to the
// provider carrying the event's id, under a key of its own per delivery (so the provider's
// idempotency cannot hide what the service itself did).
class OrderService {
 public:
  enum class Dedup { check_then_set, claim_at_once };
  OrderService(Dedup dedup, std::string provider_url, std::string concurrent_event)
      : dedup_(dedup),
        provider_url_(std::move(provider_url)),
        concurrent_(std::move(concurrent_event)) {}

  int handle(const Arrival& delivery) {
    if (!first_to_claim(delivery.event_id)) return 200;  // already handled: acknowledge
    client::HttpTransport provider(provider_url_);
    const auto answer =
        provider.send({.method = "POST",
                       .path = "/jobs",
                       .headers = {{"Idempotency-Key", "fulfil:" + delivery.event_id + "#" +
                                                           std::to_string(delivery.copy)},
                                   {"Content-Type", "application/json"}},
                       .body = R"({"eventId":")" + delivery.event_id + R"("})",
                       .timeout = 10000ms});
    return answer.ok() && answer.status / 100 == 2 ? 200 : 503;
  }

 private:
  bool first_to_claim(const std::string& event) {
    std::unique_lock lock(mutex_);
    if (dedup_ == Dedup::claim_at_once) return handled_.insert(event).second;
    // check ... then set: the window a concurrent duplicate falls into. The test widens it
    // for the concurrent event until both copies have checked, so the race is not left to
    // the scheduler (with a deadline, in case only one ever comes).
    const bool seen = handled_.contains(event);
    if (event == concurrent_) {
      ++checked_[event];
      changed_.notify_all();
      changed_.wait_for(lock, 20s, [&] { return checked_[event] >= 2; });
    }
    if (!seen) handled_.insert(event);
    return !seen;
  }

  Dedup dedup_;
  std::string provider_url_;
  std::string concurrent_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<std::string> handled_;
  std::map<std::string, int> checked_;
};

struct Rehearsal {
  std::vector<DeliveryResult> deliveries;
  std::vector<provider::JournalEntry> journal;
  std::string concurrent;
};

Rehearsal rehearse(OrderService::Dedup dedup) {
  const auto events = order_events();
  const DeliveryPlan plan = plan_deliveries(events.size(), 1);
  Rehearsal rehearsal;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (plan.duplicate_of_event[i] == Duplicate::concurrent) rehearsal.concurrent = events[i].id;
  }
  provider::ProviderServer provider({.operation_field = "eventId"}, {.port = 0});
  OrderService service(dedup, provider.base_url(), rehearsal.concurrent);
  WebhookReceiver receiver(
      [&](const Arrival& arrival, WebhookReceiver&) { return service.handle(arrival); });
  rehearsal.deliveries =
      deliver_all(events, plan, {.target = parse_target(receiver.url()), .secret = "s"});
  rehearsal.journal = provider.core().journal();
  return rehearsal;
}

const scenarios::Verdict& verdict(const scenarios::ScenarioResult& result, const std::string& id) {
  for (const auto& judged : result.verdicts) {
    if (judged.id == id) return judged;
  }
  throw std::logic_error("not judged: " + id);
}

TEST(InboundDuplicates, ACheckThenSetServiceMakesTwoEffectsOfAConcurrentDelivery) {
  const Rehearsal rehearsal = rehearse(OrderService::Dedup::check_then_set);
  for (const auto& delivery : rehearsal.deliveries)
    EXPECT_TRUE(delivery.acknowledged());
  const auto judged = scenarios::judge_traffic(rehearsal.journal, {.operation_field = "eventId"});

  EXPECT_EQ(judged.jobs.size(), 4u) << "three events, one of them handled twice";
  const auto& duplicate = verdict(judged, "no-duplicate-effect");
  EXPECT_EQ(duplicate.status, scenarios::VerdictStatus::fail);
  EXPECT_NE(duplicate.explanation.find("operation eventId=" + rehearsal.concurrent + " has 2 jobs"),
            std::string::npos)
      << duplicate.explanation;
  EXPECT_EQ(duplicate.evidence.size(), 2u) << "the two creates of that event";
}

TEST(InboundDuplicates, AServiceThatClaimsTheEventAtOnceMakesOneEffectPerEvent) {
  const Rehearsal rehearsal = rehearse(OrderService::Dedup::claim_at_once);
  for (const auto& delivery : rehearsal.deliveries)
    EXPECT_TRUE(delivery.acknowledged());
  const auto judged = scenarios::judge_traffic(rehearsal.journal, {.operation_field = "eventId"});

  EXPECT_EQ(judged.jobs.size(), 3u);
  EXPECT_EQ(judged.invocations.size(), 3u) << "one operation per event id";
  EXPECT_TRUE(judged.met()) << judged.description;
  EXPECT_EQ(verdict(judged, "no-duplicate-effect").status, scenarios::VerdictStatus::pass);
}

}  // namespace
}  // namespace retryproof::deliver
