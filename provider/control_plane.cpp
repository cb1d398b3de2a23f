// The /_test/ endpoints: how tests and scenario runners steer and inspect the provider.
// Control calls are not journaled: the journal is the evidence of what clients did.
#include <stdexcept>

#include "json_body.hpp"
#include "provider_core.hpp"
#include "responses.hpp"

namespace retryproof::provider {
Decision ProviderCore::control(const HttpRequest& request) {
  const std::string& path = request.path;
  const std::string& method = request.method;
  const auto only = [&](const char* allowed, auto&& handler) -> Decision {
    const bool head_as_get = method == "HEAD" && std::string_view(allowed) == "GET";
    return method == allowed || head_as_get ? handler() : method_not_allowed(allowed);
  };

  if (path == "/_test/faults") return only("POST", [&] { return install_plan(request.body); });
  if (path == "/_test/jobs")
    return only("GET", [&] { return json_response(200, jobs_json_locked()); });
  if (path == "/_test/journal") {
    return only("GET", [&] { return json_response(200, journal_json_locked()); });
  }
  if (path == "/_test/reset") return only("POST", [&] { return reset(request.body); });
  return error_response(404, "not_found", "unknown control endpoint " + path);
}

Decision ProviderCore::install_plan(const std::string& body) {
  try {
    // Parse everything before touching the plan in force: a bad entry changes nothing.
    plan_ = FaultPlan::from_json(parse_object_body(body));
  } catch (const std::invalid_argument& error) {
    return error_response(400, "invalid_fault_plan", error.what());
  }
  return json_response(200, plan_.to_json());
}

Decision ProviderCore::reset(const std::string& body) {
  std::uint64_t seed = seed_;
  try {
    const nlohmann::json options = parse_object_body(body);
    for (const auto& [field, value] : options.items()) {
      if (field != "seed") throw std::invalid_argument("unknown field \"" + field + "\"");
      if (!value.is_number_unsigned()) {
        throw std::invalid_argument("\"seed\" must be a non-negative integer");
      }
      seed = value.get<std::uint64_t>();
    }
  } catch (const std::invalid_argument& error) {
    return error_response(400, "invalid_reset", error.what());
  }
  seed_ = seed;
  store_.clear();
  plan_ = FaultPlan{};
  job_ids_ = JobIdGenerator(seed_);
  journal_.clear();
  return json_response(200, {{"reset", true}, {"seed", seed_}});
}

}  // namespace retryproof::provider
