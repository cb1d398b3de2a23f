// The operator's numbers: success rate by what the clients said (a driven run) or by the jobs
// the provider made (traffic alone), and the duplicate rate by jobs per operation.
#include "scenarios/evidence/operator_numbers.hpp"

#include <gtest/gtest.h>

#include "scenarios/tests/checker_fixture.hpp"

namespace retryproof::scenarios {
namespace {

using namespace hand_built;

class OperatorNumbersTest : public Checkers {};

TEST_F(OperatorNumbersTest, AnOperationRunTwiceCountsOnceAndItsSecondJobIsADuplicate) {
  const HandBuiltRun run = rerun_with_a_new_key();
  const OperatorNumbers numbers = operator_numbers(run.evidence(), SuccessBy::outcome_line);
  EXPECT_EQ(numbers.operations, 1);
  EXPECT_EQ(numbers.succeeded, 1);
  EXPECT_EQ(numbers.duplicated, 1);
}

TEST_F(OperatorNumbersTest, ASingleJobIsNoDuplicate) {
  const OperatorNumbers numbers =
      operator_numbers(one_503_then_job_1().evidence(), SuccessBy::outcome_line);
  EXPECT_EQ(numbers.operations, 1);
  EXPECT_EQ(numbers.succeeded, 1);
  EXPECT_EQ(numbers.duplicated, 0);
}

// The client said it failed although the provider made its job: a driven run counts what
// the client said, traffic alone what the provider did.
TEST_F(OperatorNumbersTest, SuccessIsTheClientsWordInARunAndTheJobInTraffic) {
  const HandBuiltRun run = this->run({invocation(1, 1, failed()), invocation_43(2, 2, unknown())},
                                     {post({.seq = 1, .job = "job_1"}), post_43(2, 100)},
                                     {job("job_1", "k42"), job_43()});
  const OperatorNumbers by_line = operator_numbers(run.evidence(), SuccessBy::outcome_line);
  EXPECT_EQ(by_line.operations, 2);
  EXPECT_EQ(by_line.succeeded, 0);
  const OperatorNumbers by_job = operator_numbers(run.evidence(), SuccessBy::job);
  EXPECT_EQ(by_job.succeeded, 2);
  EXPECT_EQ(by_job.duplicated, 0);
}

TEST_F(OperatorNumbersTest, NoInvocationsNoOperations) {
  const OperatorNumbers numbers = operator_numbers(run({}, {}).evidence(), SuccessBy::job);
  EXPECT_EQ(numbers.operations, 0);
  EXPECT_EQ(numbers.succeeded, 0);
  EXPECT_EQ(numbers.duplicated, 0);
}

}  // namespace
}  // namespace retryproof::scenarios
