// The driver's invariants stop the run with an internal error in every build, rather than
// judge windows of the journal that cannot be trusted: a world that hands back a window
// out of order trips them.
#include <gtest/gtest.h>

#include "common/invariant.hpp"
#include "scenarios/driver/driver.hpp"

namespace retryproof::scenarios {
namespace {

// A world whose account of each invocation is given: a window of the journal, and the
// journal at the end.
class GivenWindowsWorld final : public World {
 public:
  GivenWindowsWorld(std::vector<std::pair<std::uint64_t, std::uint64_t>> windows,
                    std::size_t journal_entries)
      : windows_(std::move(windows)), journal_entries_(journal_entries) {}

  InvocationResult invoke(const InvocationPlan& plan) override {
    InvocationResult result{.index = plan.index, .operation = plan.invocation.operation};
    result.first_seq = windows_.at(static_cast<std::size_t>(plan.index)).first;
    result.last_seq = windows_.at(static_cast<std::size_t>(plan.index)).second;
    result.outcome = outcome_line_of({{"outcome", "failed"}, {"reason", "stub"}}).line;
    return result;
  }
  std::vector<InvocationResult> invoke_fleet(const std::vector<InvocationPlan>&,
                                             const Fleet&) override {
    return {};
  }
  RunEvidence finish() override {
    RunEvidence evidence;
    for (std::uint64_t seq = 1; seq <= journal_entries_; ++seq)
      evidence.journal.push_back({.seq = seq, .method = "GET", .path = "/jobs/x"});
    return evidence;
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows_;
  std::size_t journal_entries_;
};

Scenario two_invocations() {
  Scenario scenario{.name = "windows"};
  scenario.operations = {{"order-1", {{"orderId", "order-1"}}}};
  scenario.invocations = {{.operation = "order-1"}, {.operation = "order-1"}};
  return scenario;
}

ScenarioResult drive_with(std::vector<std::pair<std::uint64_t, std::uint64_t>> windows,
                          std::size_t journal_entries) {
  GivenWindowsWorld world(std::move(windows), journal_entries);
  return drive(two_invocations(), ClientChoice{}, {}, 0, world);
}

TEST(DriverInvariants, ContiguousWindowsOverAWholeJournalAreJudged) {
  EXPECT_NO_THROW(drive_with({{1, 2}, {3, 3}}, 3));
}

// Between two windows the provider may journal a request no running client sent (a killed
// client's, read late): it is charged by its connection, and the run is judged.
TEST(DriverInvariants, AGapBetweenTwoWindowsIsJudged) {
  EXPECT_NO_THROW(drive_with({{1, 2}, {4, 4}}, 4));
}

TEST(DriverInvariants, WindowsThatOverlapOrAFirstOneAfterSeq1AreAnInternalError) {
  EXPECT_THROW(drive_with({{1, 2}, {2, 3}}, 3), InternalError);
  EXPECT_THROW(drive_with({{2, 2}, {3, 3}}, 3), InternalError);
}

TEST(DriverInvariants, AWindowThatEndsBeforeItStartsIsAnInternalError) {
  EXPECT_THROW(drive_with({{1, 2}, {3, 1}}, 3), InternalError);
}

TEST(DriverInvariants, WindowsPastTheEndOfTheJournalAreAnInternalError) {
  EXPECT_THROW(drive_with({{1, 2}, {3, 5}}, 3), InternalError);
}

}  // namespace
}  // namespace retryproof::scenarios
