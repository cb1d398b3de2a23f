// The proxy's /_test/ endpoints: the provider's, over the proxy's plan, journal and the
// jobs the upstream returned. Control calls are not journaled, nor forwarded: the
// upstream's own control plane, if it has one, is reached directly.
#include <stdexcept>
#include <vector>

#include "provider/control_requests.hpp"
#include "provider/json_body.hpp"
#include "provider/responses.hpp"
#include "proxy/proxy_core.hpp"

namespace retryproof::proxy {

using provider::Decision;
using provider::json_response;

Decision ProxyCore::control(const provider::HttpRequest& request, Millis now) {
  if (config_.control_token &&
      !provider::carries_bearer_token(request.headers, *config_.control_token)) {
    Decision refused = error(401, "unauthorized", "send Authorization: Bearer <control token>");
    refused.headers.emplace("WWW-Authenticate", "Bearer");
    return refused;
  }
  const std::string& path = request.path;
  const auto only = [&](std::string_view allowed, auto&& handler) -> Decision {
    const bool head_as_get = request.method == "HEAD" && allowed == "GET";
    return request.method == allowed || head_as_get
               ? handler()
               : provider::method_not_allowed(allowed, errors_.format);
  };
  if (path == "/_test/faults") {
    return only("POST", [&] {
      try {
        // Parsed whole before it replaces the plan in force: a bad entry changes nothing.
        plan_ = provider::FaultPlan::from_body(provider::parse_object_body(request.body), plan_,
                                               now + clock_offset_);
      } catch (const std::invalid_argument& problem) {
        return error(400, "invalid_fault_plan", problem.what());
      }
      return json_response(200, plan_.to_json());
    });
  }
  if (path == "/_test/jobs")
    return only("GET", [&] { return json_response(200, jobs_json_locked()); });
  if (path == "/_test/journal") {
    return only("GET", [&] { return json_response(200, journal_json_locked()); });
  }
  if (path == "/_test/reset") return only("POST", [&] { return reset(request.body); });
  if (path == "/_test/clock") return only("POST", [&] { return advance_clock(request.body); });
  for (const provider::ControlEndpoint& endpoint : config_.control_endpoints) {
    if (path != endpoint.path) continue;
    return only("GET", [&] {
      // The provider's entries of the proxy's journal in memory, as the provider judges its own.
      return provider::answer_control_endpoint(endpoint, request.query, journal_.memory(),
                                               {.server = "proxy",
                                                .seed = seed_,
                                                .operation_field = config_.operation_field,
                                                .api = &config_.api},
                                               errors_);
    });
  }
  return error(404, "not_found", "unknown control endpoint " + path);
}

Decision ProxyCore::reset(const std::string& body) {
  std::uint64_t seed = seed_;
  try {
    // The ids are the upstream's: a seed reseeds the brownouts' draw alone.
    seed = provider::read_reset_body(body).value_or(seed_);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_reset", problem.what());
  }
  // The upstream is not reset, and the clock never runs backwards.
  seed_ = seed;
  plan_ = provider::FaultPlan{};
  journal_.clear();
  upstream_.clear();
  jobs_.clear();
  job_ids_.clear();
  pending_.clear();
  creates_by_key_.clear();
  lookups_by_key_.clear();
  return json_response(200, {{"reset", true}, {"seed", seed_}});
}

Decision ProxyCore::advance_clock(const std::string& body) {
  try {
    clock_offset_ += provider::read_clock_body(body);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_clock", problem.what());
  }
  return json_response(200, {{"advancedMs", clock_offset_.count()}});
}

}  // namespace retryproof::proxy
