#include "scenarios/evidence/operator_numbers.hpp"

#include <set>

namespace retryproof::scenarios {

OperatorNumbers operator_numbers(const Evidence& evidence, SuccessBy by) {
  std::set<std::string> operations;
  std::set<std::string> succeeded;
  for (const InvocationResult& invocation : evidence.invocations()) {
    operations.insert(invocation.operation);
    if (by == SuccessBy::outcome_line && invocation.outcome &&
        invocation.outcome->outcome == Reported::succeeded) {
      succeeded.insert(invocation.operation);
    }
  }
  OperatorNumbers numbers{.operations = static_cast<int>(operations.size())};
  for (const std::string& operation : operations) {
    const std::size_t jobs = evidence.jobs_of_operation(operation).size();
    if (by == SuccessBy::job && jobs > 0) succeeded.insert(operation);
    if (jobs > 1) ++numbers.duplicated;
  }
  numbers.succeeded = static_cast<int>(succeeded.size());
  return numbers;
}

}  // namespace retryproof::scenarios
