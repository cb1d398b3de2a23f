// The replay of a declared breaker that excuses a stop in gave-up, on one hand-built instance
// (breaker=2/1s, a 1 s timeout): two failed creates open it; a stop then is excused; a stop
// long after, with no probe out, is not; and a stop while a probe was out is excused even
// when the harness saw the operation end after the probe's answer came (over HTTP, a session's
// outcomes are collected a slice late).
#include <gtest/gtest.h>

#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios::hand_built {
namespace {

json order(const std::string& name) {
  return {{"orderId", name}, {"amount", 1}};
}

Said refused() {
  return said(
      {{"outcome", "failed"}, {"reason", "its instance's circuit is open: nothing was sent"}});
}

class BreakerReplay : public Checkers {
 protected:
  // Operation `name`, served by instance 0 from `started` to `ended`, its requests seqs
  // [first, last] (none when last < first).
  InvocationResult served(int index, const std::string& name, std::uint64_t first,
                          std::uint64_t last, Said outcome, std::int64_t started,
                          std::int64_t ended) {
    scenario_.operations.push_back({"fulfillment:" + name, order(name)});
    scenario_.invocations.push_back({"fulfillment:" + name});
    InvocationResult result =
        invocation(first, last, std::move(outcome), index, "fulfillment:" + name, order(name));
    result.instance = 0;
    result.started_at = Millis(started);
    result.ended_at = Millis(ended);
    return result;
  }

  void SetUp() override {
    scenario_.operations.clear();
    scenario_.invocations.clear();
  }
};

TEST_F(BreakerReplay, ExcusesAStopWhileTheBreakerWasPossiblyOpenAndNoOther) {
  std::vector<InvocationResult> invocations = {
      // Two 503s in a row open the instance's breaker at 10 ms.
      served(0, "a", 1, 2, refused(), 0, 20),
      // Refused at once: excused.
      served(1, "b", 3, 2, refused(), 500, 500),
      // A probe at 4 s, answered 201 at 4050: the breaker closes.
      served(2, "e", 3, 3, succeeded("job_e"), 4000, 4050),
      // Refused while the probe was out, collected after its answer: excused.
      served(3, "d", 4, 3, refused(), 4010, 4060),
      // Refused long after the breaker closed: a give-up no breaker explains.
      served(4, "c", 4, 3, refused(), 9000, 9000),
  };
  std::vector<JournalEntry> journal = {
      post({.seq = 1, .at = 0, .key = "ka", .payload = order("a"), .fault = "fail-before-commit"}),
      post({.seq = 2, .at = 10, .key = "ka", .payload = order("a"), .fault = "fail-before-commit"}),
      post({.seq = 3, .at = 4000, .key = "ke", .payload = order("e"), .job = "job_e"}),
  };
  journal[2].answered_at = Millis(4050);
  const HandBuiltRun run_with_breaker =
      run(invocations, journal, {job("job_e", "ke", "e")}).declaring("breaker=2/1s,timeout=1s");
  const Verdict verdict = check("gave-up", run_with_breaker);
  EXPECT_EQ(verdict.status, VerdictStatus::fail) << verdict.explanation;
  EXPECT_EQ(verdict.explanation,
            "invocation 5 (fulfillment:c) reported failed without sending a single request");

  // Undeclared, every refusal is a give-up: a, b, d and c.
  const Verdict undeclared = check("gave-up", run(invocations, journal, {job("job_e", "ke", "e")}));
  EXPECT_MENTIONS(undeclared, "(and 3 more)");
}

}  // namespace
}  // namespace retryproof::scenarios::hand_built
