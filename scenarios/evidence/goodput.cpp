#include "scenarios/evidence/goodput.hpp"

#include <algorithm>

#include "provider/fault_plan.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios {

std::vector<GoodputSecond> goodput_by_second(const Evidence& evidence) {
  std::vector<GoodputSecond> seconds;
  const auto second_of = [&](Millis at) -> GoodputSecond& {
    const auto index = static_cast<std::size_t>(std::max<Millis::rep>(0, at / kGoodputBucket));
    while (seconds.size() <= index)
      seconds.push_back({.from = kGoodputBucket * static_cast<Millis::rep>(seconds.size())});
    return seconds[index];
  };
  for (const InvocationResult& invocation : evidence.invocations()) {
    // A rerun after its instance was killed is its operation's, which arrived once: its
    // success counts in the second the operation arrived.
    const InvocationResult& arrival =
        invocation.rerun_of
            ? evidence.invocations().at(static_cast<std::size_t>(*invocation.rerun_of))
            : invocation;
    GoodputSecond& second = second_of(arrival.started_at);
    if (!invocation.rerun_of) ++second.arrived;
    if (invocation.outcome && invocation.outcome->outcome == Reported::succeeded)
      ++second.succeeded;
  }
  for (const JournalEntry& entry : evidence.journal()) {
    GoodputSecond& second = second_of(entry.at);
    if (entry.kind == provider::RequestKind::create) ++second.creates;
    if (entry.kind == provider::RequestKind::lookup) ++second.lookups;
    if (entry.outcome == provider::Outcome::shed) ++second.shed;
    if (entry.queue) second.deepest_queue = std::max(second.deepest_queue, entry.queue->depth);
  }
  return seconds;
}

std::optional<Trigger> trigger_of(const Scenario& scenario) {
  std::optional<Trigger> trigger;
  const auto widen = [&](Millis from, Millis until) {
    if (!trigger) trigger = Trigger{from, until};
    trigger->from = std::min(trigger->from, from);
    trigger->until = std::max(trigger->until, until);
  };
  for (const OutageWindow& outage : outage_windows(scenario))
    widen(outage.from, outage.until);
  if (scenario.plan.is_null()) return trigger;  // a scenario built in code, with no plan
  const provider::FaultPlan plan = provider::FaultPlan::from_json(scenario.plan);
  if (plan.capacity()) {
    for (const provider::CapacityDrop& drop : plan.capacity()->capacity().drops)
      widen(drop.from, drop.until);
  }
  return trigger;
}

}  // namespace retryproof::scenarios

namespace retryproof::scenarios {
namespace {

double rate_of(int succeeded, int arrived) {
  return arrived == 0 ? 1.0 : static_cast<double>(succeeded) / arrived;
}

}  // namespace

// As checkers/recovery.cpp reads them; sim_traffic_test checks that the two agree.
GoodputRecovery recovery_of(const std::vector<GoodputSecond>& seconds, const Trigger& trigger,
                            Millis length) {
  GoodputRecovery recovery;
  int before_succeeded = 0;
  for (const GoodputSecond& second : seconds) {
    if (second.from + kGoodputBucket > trigger.from) break;
    recovery.before += second.arrived;
    before_succeeded += second.succeeded;
  }
  recovery.baseline = rate_of(before_succeeded, recovery.before);
  for (const GoodputSecond& second : seconds) {
    if (second.from < trigger.until || second.from >= length) continue;
    const bool back = second.arrived == 0 || rate_of(second.succeeded, second.arrived) >=
                                                 kRecoveredShare * recovery.baseline;
    if (!back) recovery.recovered.reset();
    if (back && !recovery.recovered) recovery.recovered = second.from;
  }
  return recovery;
}

TrafficPicture traffic_picture(const Evidence& evidence) {
  const TrafficPlan& traffic = *evidence.scenario().traffic;
  TrafficPicture picture{.seconds = goodput_by_second(evidence),
                         .trigger = trigger_of(evidence.scenario()),
                         .length = traffic.length,
                         .recover_within = traffic.recover_within};
  if (!picture.trigger) return picture;
  const GoodputRecovery recovery = recovery_of(picture.seconds, *picture.trigger, traffic.length);
  picture.baseline_known = recovery.before >= kLeastBaseline;
  picture.baseline = recovery.baseline;
  if (picture.baseline_known && recovery.recovered)
    picture.recovered_after = *recovery.recovered - picture.trigger->until;
  return picture;
}

}  // namespace retryproof::scenarios
