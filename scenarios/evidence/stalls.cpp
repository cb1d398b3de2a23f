#include "scenarios/evidence/stalls.hpp"

#include <algorithm>

namespace retryproof::scenarios {
namespace {

// When the run was on the provider's clock: from its first invocation's start (or request)
// to the last answer or end.
std::pair<Millis, Millis> whole_run(const ScenarioResult& result) {
  Millis from = Millis::max();
  Millis until{0};
  for (const InvocationResult& invocation : result.invocations) {
    from = std::min(from, invocation.started_at);
    until = std::max(until, invocation.ended_at);
  }
  for (const provider::JournalEntry& entry : result.journal) {
    from = std::min(from, entry.at);
    until = std::max(until, entry.answered_at.value_or(entry.at));
  }
  return {from == Millis::max() ? Millis{0} : from, until};
}

std::pair<Millis, Millis> window_of(const Verdict& verdict, const ScenarioResult& result) {
  if (verdict.evidence.empty()) return whole_run(result);
  Millis from = Millis::max();
  Millis until{0};
  for (const provider::JournalEntry& entry : result.journal) {
    if (std::find(verdict.evidence.begin(), verdict.evidence.end(), entry.seq) ==
        verdict.evidence.end())
      continue;
    from = std::min(from, entry.at);
    until = std::max(until, entry.answered_at.value_or(entry.at));
  }
  return from == Millis::max() ? whole_run(result) : std::pair{from, until};
}

std::string stall_text(const StallsWithin& stalled) {
  const Stall& longest = *stalled.longest;
  const std::string span = std::to_string(longest.lasted().count()) + " ms from +" +
                           std::to_string(longest.from.count()) + "ms";
  const std::string why = longest.what + ": a busy or stopped machine)";
  if (stalled.count == 1) return "the harness itself was stalled " + span + " (" + why;
  return "the harness itself was stalled " + std::to_string(stalled.count) + " times, " +
         std::to_string(stalled.total.count()) + " ms in all (the longest " + span + ", " + why;
}

}  // namespace

std::optional<StallsWithin> stalled_within(const std::vector<Stall>& stalls, Millis from,
                                           Millis until) {
  StallsWithin stalled;
  for (const Stall& stall : stalls) {
    if (stall.until < from || stall.from > until) continue;
    stalled.total += std::min(until, stall.until) - std::max(from, stall.from);
    ++stalled.count;
    if (stalled.longest == nullptr || stall.lasted() > stalled.longest->lasted())
      stalled.longest = &stall;
  }
  if (stalled.longest == nullptr) return std::nullopt;
  const Millis window = until - from;
  // A window shorter than a stall (a retry's few milliseconds) is in doubt if any stall
  // touched it; a long one only when its stalls add up to a tenth of it.
  if (stalled.total * kStalledShareOfWindow < window &&
      stalled.longest->lasted() * kStalledShareOfWindow < window)
    return std::nullopt;
  return stalled;
}

void account_for_stalls(std::vector<Verdict>& verdicts, const ScenarioResult& result) {
  if (result.stalls.empty()) return;
  for (Verdict& verdict : verdicts) {
    if (verdict.status != VerdictStatus::fail || verdict_row(verdict.id).rests != Rests::on_time)
      continue;
    const auto [from, until] = window_of(verdict, result);
    const auto stalled = stalled_within(result.stalls, from, until);
    if (!stalled) continue;
    verdict.status = VerdictStatus::inconclusive;
    verdict.explanation = "it failed (" + verdict.explanation + "), but " + stall_text(*stalled) +
                          " within the window it judged; not blamed on the client";
  }
}

void account_for_stalls_in_expectations(ScenarioResult& result) {
  if (result.stalls.empty()) return;
  const auto [from, until] = whole_run(result);
  const auto stalled = stalled_within(result.stalls, from, until);
  if (!stalled) return;
  // A verdict's own miss was settled above; harm (more jobs than expected, a violation the
  // scenario expects and missed) is never the machine's doing.
  const auto machine_may_cause = [](const Unmet& miss) {
    return miss.failed_verdict.empty() && miss.severity == Severity::policy;
  };
  for (const Unmet& miss : result.unmet) {
    if (machine_may_cause(miss))
      result.inconclusive.push_back({miss.text + ", but " + stall_text(*stalled), ""});
  }
  std::erase_if(result.unmet, machine_may_cause);
}

}  // namespace retryproof::scenarios
