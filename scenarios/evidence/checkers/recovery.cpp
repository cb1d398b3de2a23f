// recovery (policy): no storm outlives its trigger. After an outage ends, every client the
// outage caught sends its last request within its longest backoff (declared max-backoff, or
// the scenario's client.maxDelay), one more timeout and a grace for the machine (fleet.hpp): it
// succeeded at its next attempt, or it had given up. A client still retrying past that is load the
// service sees after it has recovered — Bronson et al. (HotOS 2021) describe a database that stayed
// down for it.
//
// Under steady traffic (goodput.hpp) clients keep arriving, so recovery is the fleet's: after
// the trigger (its outages and capacity drops) ends, the share of arriving operations that
// succeed must be back to kRecoveredShare of what it was before the trigger, and stay there,
// within the traffic's recoverWithin. A fleet still below it is a metastable failure, named
// with its numbers: offered load, retries, the provider's queue, goodput, and how long it took.
#include <cstdio>

#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"
#include "scenarios/evidence/goodput.hpp"

namespace retryproof::scenarios::checkers {
namespace {

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", share * 100);
  return text;
}

double rate_of(int succeeded, int arrived) {
  return arrived == 0 ? 1.0 : static_cast<double>(succeeded) / arrived;
}

// What the fleet did in the seconds from `from` on: offered load, retries, the queue, goodput.
std::string numbers_after(const std::vector<GoodputSecond>& seconds, Millis from) {
  int arrived = 0, succeeded = 0, creates = 0, lookups = 0, shed = 0, counted = 0;
  std::size_t queue = 0;
  for (const GoodputSecond& second : seconds) {
    if (second.from < from) continue;
    ++counted;
    arrived += second.arrived;
    succeeded += second.succeeded;
    creates += second.creates;
    lookups += second.lookups;
    shed += second.shed;
    queue = std::max(queue, second.deepest_queue);
  }
  const double per_second = counted == 0 ? 0 : 1.0 / counted;
  char text[256];
  std::snprintf(text, sizeof text,
                "offered %.0f operations/s, the provider saw %.0f creates/s (%.1f per operation) "
                "and %.0f lookups/s, shed %d, its queue up to %zu deep; goodput %.0f/s",
                arrived * per_second, creates * per_second,
                arrived == 0 ? 0.0 : static_cast<double>(creates) / arrived, lookups * per_second,
                shed, queue, succeeded * per_second);
  return text;
}

Verdict recovery_on_goodput(const Evidence& evidence) {
  const TrafficPlan& traffic = *evidence.scenario().traffic;
  const std::optional<Trigger> trigger = trigger_of(evidence.scenario());
  if (!trigger) return not_applicable("no outage or capacity drop to recover from");
  const std::vector<GoodputSecond> seconds = goodput_by_second(evidence);
  int before = 0, before_succeeded = 0;
  for (const GoodputSecond& second : seconds) {
    if (second.from + kGoodputBucket > trigger->from) break;
    before += second.arrived;
    before_succeeded += second.succeeded;
  }
  if (before < kLeastBaseline) {
    return inconclusive(std::to_string(before) + " operations arrived before the trigger at " +
                        std::to_string(trigger->from.count()) + " ms: too few to know its " +
                        "success rate (" + std::to_string(kLeastBaseline) + " are needed)");
  }
  const double baseline = rate_of(before_succeeded, before);
  if (trigger->until + traffic.recover_within > traffic.length) {
    return inconclusive("the traffic ends " +
                        std::to_string((traffic.length - trigger->until).count()) +
                        " ms after its trigger: too soon to see it recover within " +
                        std::to_string(traffic.recover_within.count()) + " ms");
  }
  // The first second after the trigger from which every second is back near the rate before.
  std::optional<Millis> recovered;
  for (const GoodputSecond& second : seconds) {
    if (second.from < trigger->until || second.from >= traffic.length) continue;
    const bool back = second.arrived == 0 ||
                      rate_of(second.succeeded, second.arrived) >= kRecoveredShare * baseline;
    if (!back) recovered.reset();
    if (back && !recovered) recovered = second.from;
  }
  const std::string told = "success " + percent(baseline) + " before the trigger";
  if (recovered && *recovered - trigger->until <= traffic.recover_within) {
    return pass("the fleet recovered " + std::to_string((*recovered - trigger->until).count()) +
                " ms after its trigger ended (" + told + ", back to " + percent(kRecoveredShare) +
                " of it), within " + std::to_string(traffic.recover_within.count()) + " ms");
  }
  std::vector<std::uint64_t> seqs;
  for (const JournalEntry& entry : evidence.journal()) {
    if (entry.at >= trigger->until + traffic.recover_within && seqs.size() < 10)
      seqs.push_back(entry.seq);
  }
  Violations violations;
  // Never back while traffic lasted: the retries kept it down (metastable). Back, but late: a
  // recovery slower than the bound (a breaker's long cooldown, a queue that drains slowly).
  const std::string what =
      recovered ? "slow to recover: the trigger ended at " +
                      std::to_string(trigger->until.count()) + " ms, and the fleet recovered only " +
                      std::to_string((*recovered - trigger->until).count()) + " ms later"
                : "a metastable failure: the trigger ended at " +
                      std::to_string(trigger->until.count()) +
                      " ms, and the fleet never recovered while traffic lasted";
  violations.add(what + " (" + told + "; the bound is " +
                     std::to_string(traffic.recover_within.count()) +
                     " ms). After the trigger: " + numbers_after(seconds, trigger->until),
                 std::move(seqs));
  return std::move(violations).verdict("");
}

}  // namespace

Verdict recovery(const Evidence& evidence) {
  if (evidence.scenario().traffic) return recovery_on_goodput(evidence);
  const std::vector<OutageWindow> outages = outage_windows(evidence.scenario());
  if (outages.empty()) return not_applicable("no outage to recover from");
  const Millis bound = evidence.policy().max_backoff + evidence.policy().timeout + kRecoveryGrace;
  Violations violations;
  int caught = 0;
  for (const OutageWindow& outage : outages) {
    for (const InvocationResult& invocation : evidence.invocations()) {
      const auto entries = evidence.entries_of(invocation);
      const bool in_it =
          std::any_of(entries.begin(), entries.end(),
                      [&](const JournalEntry& entry) { return outage.holds(entry.at); });
      if (!in_it) continue;
      ++caught;
      const JournalEntry& last = entries.back();
      if (last.at < outage.until + bound) continue;
      violations.add(label(invocation) + " was still sending " +
                         std::to_string((last.at - outage.until).count()) +
                         " ms after the outage ended (" + seq_text(last) + "); the bound is " +
                         std::to_string(bound.count()) +
                         " ms: its longest backoff, one timeout, and " +
                         std::to_string(kRecoveryGrace.count()) + " ms",
                     {last.seq});
    }
  }
  if (caught == 0) return not_applicable("no client sent a request during the outage");
  return std::move(violations)
      .verdict("the " + std::to_string(caught) + " clients the outage caught were done within " +
               std::to_string(bound.count()) + " ms of its end");
}

}  // namespace retryproof::scenarios::checkers
