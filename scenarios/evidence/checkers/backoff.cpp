// backoff (policy): each retry waits at least the floor (the declared min-backoff, or the
// scenario's) after the previous attempt ended for the client — its answer, or the moment
// it closed the connection. Measured from that end, not from the previous arrival, so
// neither the attempt's own duration nor a slow reconnect on a busy machine counts as
// waiting.
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios::checkers {
namespace {

// Below this a retry did not wait at all: it came as fast as a reconnect on a busy machine.
constexpr Millis kAtOnce{10};

std::string how_long(Millis gap, const JournalEntry& previous) {
  if (gap < Millis(0))
    return "while the previous attempt (" + seq_text(previous) + ") was still open";
  const std::string after = std::to_string(gap.count()) + " ms after the previous attempt (" +
                            seq_text(previous) + ") ended";
  return gap < kAtOnce ? "at once, " + after : after;
}

}  // namespace

Verdict backoff(const Evidence& evidence) {
  const JudgedPolicy& policy = evidence.policy();
  Violations violations;
  std::string gaps;
  int unseen = 0;
  for (const auto& invocation : evidence.invocations()) {
    const auto creates = evidence.creates_of(invocation);
    for (std::size_t i = 1; i < creates.size(); ++i) {
      const auto ended = ended_for_client(*creates[i - 1], policy.timeout);
      if (!ended) {
        ++unseen;
        continue;
      }
      const Millis gap = creates[i]->at - *ended;
      gaps += (gaps.empty() ? "" : ", ") + std::to_string(gap.count());
      if (gap >= policy.min_backoff) continue;
      violations.add("attempt " + std::to_string(i + 1) + " of " + invocation.operation + " (" +
                         seq_text(*creates[i]) + ") came " + how_long(gap, *creates[i - 1]) +
                         "; the floor is " + policy.min_backoff_text(),
                     {creates[i - 1]->seq, creates[i]->seq});
    }
  }
  const std::string not_judged =
      std::to_string(unseen) +
      " retry(s) after an answer held past the client's timeout not judged: the provider did "
      "not see when the client stopped waiting";
  if (gaps.empty()) return not_applicable(unseen == 0 ? "no operation was retried" : not_judged);
  return std::move(violations)
      .verdict("every retry waited at least " + std::to_string(policy.min_backoff.count()) +
               " ms after the previous attempt ended (waits: " + gaps + " ms)" +
               (unseen == 0 ? "" : "; " + not_judged));
}

}  // namespace retryproof::scenarios::checkers
