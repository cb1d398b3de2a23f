#include "fault_plan.hpp"

#include <stdexcept>
#include <string>

namespace retryproof::provider {

FaultPlan FaultPlan::from_json(const nlohmann::json& body) {
  if (!body.is_object()) throw std::invalid_argument("the body must be a JSON object");
  const auto faults = body.find("faults");
  if (faults == body.end()) throw std::invalid_argument("missing field \"faults\"");
  if (!faults->is_array()) throw std::invalid_argument("\"faults\" must be an array");
  for (const auto& [field, value] : body.items()) {
    if (field != "faults") throw std::invalid_argument("unknown field \"" + field + "\"");
  }

  FaultPlan plan;
  for (std::size_t i = 0; i < faults->size(); ++i) {
    const auto& entry = (*faults)[i];
    const std::string where = "faults[" + std::to_string(i) + "]";
    if (!entry.is_string()) throw std::invalid_argument(where + ": expected a fault name");
    try {
      plan.script_.push_back(parse_fault(entry.get<std::string>()));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(where + ": " + error.what());
    }
  }
  return plan;
}

Fault FaultPlan::take() {
  if (script_.empty()) return Fault{};
  Fault next = script_.front();
  script_.pop_front();
  return next;
}

nlohmann::json FaultPlan::to_json() const {
  auto names = nlohmann::json::array();
  for (const auto& fault : script_)
    names.push_back(to_string(fault));
  return {{"faults", names}};
}

}  // namespace retryproof::provider
