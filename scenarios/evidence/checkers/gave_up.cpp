// gave-up (policy): a run that reports failed or unknown must have tried: not without a
// single request (unless an earlier run of the operation gave it its answer), and not with
// budget left after a failure the provider's contract says is safe to retry (503, 429; on
// an API without keys only a 429, which turns a create away before any work). Each is read
// by its meaning, the code the journal recorded, whatever status the API shape sent it as.
//
// Except a run that failed closed: it reported unknown after a lookup that could not say
// what its create did. The provider answered the create on time, but that does not prove
// the client read the answer in time: a client starved of CPU (a hundred Node processes on
// two cores) finds its timer expired before it reads the 503 waiting on its socket, takes
// the create's outcome as unknown and looks the key up, as the safe pattern asks. When that
// lookup fails, unknown is the truthful report, not a give-up.
//
// And except a run under traffic whose instance's declared retry budget was spent when it
// stopped (budget_replay.hpp), or whose instance's declared circuit breaker was possibly open
// (breaker_replay.hpp): stopping then, or not starting, is what a budget and a breaker are for.
#include <algorithm>

#include "scenarios/evidence/breaker_replay.hpp"
#include "scenarios/evidence/budget_replay.hpp"
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {
namespace {

// Whether `invocation` looked its key up after `create` and the lookup proved nothing:
// neither the job (200) nor its absence (404).
bool failed_lookup_after(const Evidence& evidence, const InvocationResult& invocation,
                         const JournalEntry& create) {
  const auto entries = evidence.entries_of(invocation);
  return std::any_of(entries.begin(), entries.end(), [&](const JournalEntry& entry) {
    const provider::Meaning meaning = meaning_of(entry);
    return entry.kind == provider::RequestKind::lookup && entry.seq > create.seq &&
           meaning != provider::Meaning::success && meaning != provider::Meaning::not_found;
  });
}

}  // namespace

Verdict gave_up(const Evidence& evidence) {
  const JudgedPolicy& policy = evidence.policy();
  Violations violations;
  bool any_gave_up = false;
  const std::vector<bool> budget_spent = stopped_by_budget(evidence);
  const std::vector<bool> breaker_open = stopped_by_breaker(evidence);
  for (const auto& invocation : evidence.invocations()) {
    if (!invocation.outcome || invocation.outcome->outcome == Reported::succeeded) continue;
    any_gave_up = true;
    if (breaker_open[static_cast<std::size_t>(invocation.index)]) continue;
    const std::string reported = to_string(invocation.outcome->outcome);
    // A rerun after a kill under traffic had no earlier word to go on: its killed runs ended
    // without one.
    const bool first_run =
        invocation.rerun_of || std::none_of(evidence.invocations().begin(),
                                            evidence.invocations().begin() + invocation.index,
                                            [&](const InvocationResult& earlier) {
                                              return earlier.operation == invocation.operation;
                                            });
    if (first_run && evidence.entries_of(invocation).empty()) {
      violations.add(
          label(invocation) + " reported " + reported + " without sending a single request", {});
      continue;
    }
    const auto creates = evidence.creates_of(invocation);
    if (creates.empty() || static_cast<int>(creates.size()) >= policy.attempts) continue;
    const JournalEntry& last = *creates.back();
    const provider::Meaning meaning = meaning_of(last);
    const bool limited = meaning == provider::Meaning::rate_limited;
    const bool safe_to_retry =
        limited || (meaning == provider::Meaning::unavailable && !evidence.keyless());
    if (!safe_to_retry || budget_spent[static_cast<std::size_t>(invocation.index)]) continue;
    if (invocation.outcome->outcome == Reported::unknown &&
        failed_lookup_after(evidence, invocation, last)) {
      continue;  // it failed closed
    }
    // A lookup after it that found the job would have made the report succeeded; one that
    // found nothing does not change that budget was left.
    violations.add(
        label(invocation) + " reported " + reported + " after a " + answer_text(last) + " (" +
            seq_text(last) + ") with " +
            std::to_string(policy.attempts - static_cast<int>(creates.size())) + " of its " +
            std::to_string(policy.attempts) + " attempts left; the provider's contract makes a " +
            answer_text(last) +
            (evidence.keyless() ? " safe to retry" : " safe to retry with the same key") +
            (limited ? " after its Retry-After" : " after a backoff") +
            " (if your client's budget is smaller, declare --client-policy attempts=" +
            std::to_string(creates.size()) + ")",
        {last.seq});
  }
  if (!any_gave_up) return not_applicable("no run reported failed or unknown");
  return std::move(violations)
      .verdict("every failed or unknown report came after the client had tried what it could");
}

}  // namespace retryproof::scenarios::checkers
