// The outcomes a scenario expects (scenarios/model/expectations.hpp): one miss names its
// operation; many, as traffic ends thousands of operations, are one line per outcome that
// names the first few in the order they arrived and counts the rest.
#include <gtest/gtest.h>

#include "scenarios/model/expectations.hpp"

namespace retryproof::scenarios {
namespace {

InvocationResult ended(int index, const std::string& operation, Reported outcome) {
  return {.index = index, .operation = operation, .outcome = OutcomeLine{.outcome = outcome}};
}

Scenario expecting_success() {
  Scenario scenario{.name = "t"};
  scenario.expect.outcomes = {Reported::succeeded};
  return scenario;
}

TEST(UnmetOutcomes, ALoneMissNamesItsOperation) {
  ScenarioResult result;
  result.invocations = {ended(0, "op-1", Reported::succeeded), ended(1, "op-2", Reported::failed)};
  const std::vector<Unmet> unmet = unmet_expectations(expecting_success(), result);
  ASSERT_EQ(unmet.size(), 1u);
  EXPECT_EQ(unmet[0].text, "op-2 ended failed; expected succeeded");
}

TEST(UnmetOutcomes, ManyMissesAreALinePerOutcomeNamingTheFirstToArrive) {
  ScenarioResult result;
  for (int n = 1; n <= 12; ++n)
    result.invocations.push_back(ended(n - 1, "op-" + std::to_string(n), Reported::failed));
  result.invocations.push_back(ended(12, "op-13", Reported::unknown));
  result.invocations.push_back(ended(13, "op-14", Reported::unknown));
  // A rerun's word is its operation's last: op-1 succeeded in the end.
  result.invocations.push_back(ended(14, "op-1", Reported::succeeded));
  const std::vector<Unmet> unmet = unmet_expectations(expecting_success(), result);
  ASSERT_EQ(unmet.size(), 2u);
  EXPECT_EQ(unmet[0].text,
            "11 operations ended failed; expected succeeded: op-2, op-3, op-4, op-5, op-6 and 6 "
            "more");
  EXPECT_EQ(unmet[1].text, "2 operations ended unknown; expected succeeded: op-13, op-14");
  EXPECT_EQ(unmet[0].severity, Severity::policy);
}

}  // namespace
}  // namespace retryproof::scenarios
