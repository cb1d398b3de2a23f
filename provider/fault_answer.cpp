#include "provider/fault_answer.hpp"

#include <stdexcept>
#include <string>

namespace retryproof::provider {

Decision fault_answer(const Fault& fault, const Decision* created, const ErrorStyle& errors) {
  const FaultRow& row = row_of(fault.kind);
  Decision answer;
  if (row.status == 201) {
    if (created == nullptr) throw std::logic_error("a fault that sends the job, without one");
    answer = *created;
  } else if (row.status != 0) {
    answer = errors.error(row.status, row.error_code, row.error_detail);
  }
  answer.delivery = row.delivery;
  if (row.parameter == FaultParameter::hold) answer.delay = fault.duration;
  if (row.parameter == FaultParameter::retry_after) {
    answer.headers.emplace("Retry-After", std::to_string(fault.retry_after_seconds));
  }
  return answer;
}

}  // namespace retryproof::provider
