// stopping (policy): in a long outage, a service instance that declares a circuit breaker or a
// retry budget stops adding load within a bound, then sends no more than it declares. An
// outage of tens of seconds is where the two earn their keep: without them every operation
// that arrives spends its attempts, and the failing service sees (1 + retries) times the
// traffic for as long as the outage lasts (Brooker 2022; Google SRE, Handling Overload).
//
// A breaker (breaker=F/T) opens at the instance's F-th failed create of the outage; from then
// on, past one timeout and a grace for creates already on their way, the instance sends one
// probe every T (and one of slack for the order of arrivals). It must also probe: an operation
// that arrives when a probe is due, more than T after the last, sends one, or the instance
// stays cut off after the service is back. A budget (retry-budget=P%/N) lets the instance's
// retries in the outage reach its burst N and P% of its first requests there, and no more.
#include <algorithm>
#include <cstdio>

#include "scenarios/evidence/breaker_replay.hpp"
#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios::checkers {
namespace {

// An outage this long is one a breaker or a budget must stop in: tens of seconds.
constexpr Millis kLongOutage{10000};

std::string seconds(Millis at) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(at.count()) / 1000);
  return text;
}

std::string instance_name(int instance) {
  return "instance " + std::to_string(instance + 1);
}

std::vector<std::uint64_t> first_seqs(const std::vector<const JournalEntry*>& entries) {
  std::vector<std::uint64_t> seqs;
  for (const JournalEntry* entry : entries)
    if (seqs.size() < 10) seqs.push_back(entry->seq);
  return seqs;
}

struct Judged {
  int instances = 0;       // instance-outages judged
  int breakers = 0;        // of them, those whose breaker was
  Millis slowest_stop{0};  // the longest an instance took to open its breaker
};

// The breaker's part, for one instance in one outage that fails every request; false if the
// instance never failed enough there to open it.
bool judge_breaker(const Evidence& evidence, int instance, const OutageWindow& outage,
                   const std::vector<const JournalEntry*>& creates, Violations& violations,
                   Judged& judged) {
  const client::BreakerSettings& breaker = *evidence.policy().breaker;
  std::vector<const JournalEntry*> in_outage;
  for (const JournalEntry* create : creates)
    if (outage.holds(create->at)) in_outage.push_back(create);
  if (static_cast<int>(in_outage.size()) < breaker.failures) return false;
  ++judged.breakers;
  const JournalEntry& opening = *in_outage[static_cast<std::size_t>(breaker.failures - 1)];
  judged.slowest_stop = std::max(judged.slowest_stop, opening.at - outage.from);
  const Millis bound = opening.at + evidence.policy().timeout + kRecoveryGrace;
  if (bound >= outage.until) return true;
  std::vector<const JournalEntry*> probes;
  for (const JournalEntry* create : in_outage)
    if (create->at >= bound) probes.push_back(create);
  const long allowed = (outage.until - bound) / breaker.open_for + 2;
  const std::string opened = instance_name(instance) + "'s breaker opened at " +
                             seconds(opening.at) + " (its " + std::to_string(breaker.failures) +
                             "th failed create in the outage, " + seq_text(opening) + ")";
  if (static_cast<long>(probes.size()) > allowed) {
    violations.add(opened + ", yet it sent " + std::to_string(probes.size()) + " creates in the " +
                       seconds(outage.until - bound) + " of the outage from one timeout and " +
                       seconds(kRecoveryGrace) + " later, where a breaker of " +
                       breaker.describe() + " sends at most " + std::to_string(allowed) +
                       " probes (one every " + seconds(breaker.open_for) + ")",
                   first_seqs(probes));
    return true;
  }
  // Due to probe: an operation of the instance arrived more than T (and the slack) after the
  // last probe, and nothing was sent for a while after it.
  const Millis slack = evidence.policy().timeout + kRecoveryGrace;
  Millis last = bound;
  std::size_t next = 0;
  for (const InvocationResult& invocation : evidence.invocations()) {
    if (invocation.instance != instance || invocation.started_at < bound ||
        invocation.started_at >= outage.until - slack)
      continue;
    while (next < probes.size() && probes[next]->at <= invocation.started_at)
      last = probes[next++]->at;
    const Millis sent = next < probes.size() ? probes[next]->at : outage.until;
    if (invocation.started_at - last > breaker.open_for + slack &&
        sent - invocation.started_at > slack) {
      violations.add(opened + ", and it never probed again: " + label(invocation) + " arrived " +
                         seconds(invocation.started_at - last) +
                         " after its last probe, and no create was sent for " +
                         seconds(sent - invocation.started_at) + " after it; a breaker of " +
                         breaker.describe() + " lets a probe through every " +
                         seconds(breaker.open_for),
                     {});
      return true;
    }
  }
  return true;
}

// The budget's part, for one instance in one outage: its retries there against its burst and
// its share of first requests there; false if it sent nothing there.
bool judge_budget(const Evidence& evidence, int instance, const OutageWindow& outage,
                  Violations& violations) {
  const JudgedPolicy& policy = evidence.policy();
  int first = 0;
  int succeeded_retries = 0;
  std::vector<const JournalEntry*> retries;
  for (const InvocationResult& invocation : evidence.invocations()) {
    if (invocation.instance != instance) continue;
    for (const LoadRequest& request : load_requests(evidence, invocation)) {
      if (!outage.holds(request.entry->at)) continue;
      if (request.first) {
        ++first;
      } else {
        retries.push_back(request.entry);
        if (meaning_of(*request.entry) == provider::Meaning::success) ++succeeded_retries;
      }
    }
  }
  if (first == 0) return false;
  // A budget fills on each first request, or (the AWS SDKs' quota) on each success: allowed
  // the more of the two, a retry that succeeded filling it as a first request does.
  const double allowed =
      policy.retry_burst + *policy.retry_budget * (first + succeeded_retries) + 1;
  if (static_cast<double>(retries.size()) <= allowed) return true;
  char text[160];
  std::snprintf(text, sizeof text,
                " sent %zu retries for %d first requests in the outage, where its declared "
                "budget allows %.0f (%.0f to start from, %.0f%% of them, and one of slack)",
                retries.size(), first, allowed, policy.retry_burst, *policy.retry_budget * 100);
  violations.add(instance_name(instance) + text, first_seqs(retries));
  return true;
}

// Whether the instance was killed during the outage: its next process begins with a closed
// breaker and a full budget, so what the instance sent there is two processes' and neither's
// to be judged by one breaker or one bucket.
bool restarted_in(const Evidence& evidence, int instance, const OutageWindow& outage) {
  const auto& runs = evidence.invocations();
  return std::any_of(runs.begin(), runs.end(), [&](const InvocationResult& run) {
    return run.instance == instance && run.killed && outage.holds(run.ended_at);
  });
}

}  // namespace

Verdict stopping(const Evidence& evidence) {
  const JudgedPolicy& policy = evidence.policy();
  if (!policy.breaker && !policy.retry_budget) {
    return not_applicable(
        "no circuit breaker or retry budget declared (breaker=F/T, retry-budget=P%)");
  }
  const auto creates = creates_by_instance(evidence);
  if (creates.empty()) {
    return not_applicable(
        "a breaker and a budget are a long-lived client's: judged where instances serve many "
        "operations (traffic, or run --sessions)");
  }
  std::vector<OutageWindow> long_outages;
  for (const OutageWindow& outage : outage_windows(evidence.scenario()))
    if (outage.until - outage.from >= kLongOutage) long_outages.push_back(outage);
  if (long_outages.empty())
    return not_applicable("no outage of " + seconds(kLongOutage) + " or more to stop in");
  Violations violations;
  Judged judged;
  for (const OutageWindow& outage : long_outages) {
    for (const auto& [instance, mine] : creates) {
      if (restarted_in(evidence, instance, outage)) continue;
      // A breaker is for an outage that fails everything: in a brownout a probe's success
      // rightly closes it, and retries carry operations through.
      const bool breaker = policy.breaker && outage.total &&
                           judge_breaker(evidence, instance, outage, mine, violations, judged);
      const bool budget =
          policy.retry_budget && judge_budget(evidence, instance, outage, violations);
      if (breaker || budget) ++judged.instances;
    }
  }
  if (judged.instances == 0) {
    const bool any_total = std::any_of(long_outages.begin(), long_outages.end(),
                                       [](const OutageWindow& outage) { return outage.total; });
    if (!policy.retry_budget && !any_total) {
      return not_applicable(
          "no long outage fails every request, where a breaker must stop its instance (a "
          "brownout's successes rightly close it); no retry budget declared");
    }
    return not_applicable("no instance sent enough in the outage to be stopped");
  }
  std::string how;
  if (judged.breakers > 0) {
    how = "each breaker opened within " + seconds(judged.slowest_stop) +
          " of its outage's start and then probed every " + seconds(policy.breaker->open_for);
  }
  if (policy.retry_budget)
    how +=
        (how.empty() ? "" : "; ") + std::string("each instance's retries stayed within its budget");
  return std::move(violations)
      .verdict(std::to_string(judged.instances) + " instances judged in " +
               std::to_string(long_outages.size()) + " long outage(s): " + how);
}

}  // namespace retryproof::scenarios::checkers
