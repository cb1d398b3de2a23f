// The operator's numbers of a run: its success rate and its duplicate rate. A pure function
// of the evidence, so a driven fleet and a journal judged alone are counted alike.
#pragma once

#include "scenarios/driver/run_result.hpp"
#include "scenarios/evidence/evidence.hpp"

namespace retryproof::scenarios {

// What makes an operation a success. A driven run has the clients' word for it; traffic
// judged alone has only what the provider did.
enum class SuccessBy {
  outcome_line,  // one of its invocations reported "succeeded"
  job,           // a job was created for it
};

// Over the operations the invocations ran, each counted once however many invocations
// (workers) it had.
OperatorNumbers operator_numbers(const Evidence& evidence, SuccessBy by);

}  // namespace retryproof::scenarios
