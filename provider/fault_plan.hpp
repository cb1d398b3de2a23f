// Which fault the next new operation gets.
#pragma once

#include <deque>
#include <nlohmann/json.hpp>

#include "fault.hpp"

namespace retryproof::provider {

class FaultPlan {
 public:
  FaultPlan() = default;

  // Reads the body of POST /_test/faults: {"faults": ["commit-then-error", ...]}.
  // Throws std::invalid_argument naming the offending entry ("faults[2]: unknown fault ...").
  static FaultPlan from_json(const nlohmann::json& body);

  // The fault for the next new operation; consumes it. `none` when nothing is left.
  Fault take();

  // The plan as it stands, in the shape from_json reads.
  nlohmann::json to_json() const;

 private:
  std::deque<Fault> script_;  // FIFO: one entry consumed per new operation
};

}  // namespace retryproof::provider
