// The /_test/ endpoints: how tests and scenario runners steer and inspect the provider.
// Control calls are not journaled: the journal is the evidence of what clients did.
#include <strings.h>

#include <stdexcept>

#include "common/constant_time.hpp"
#include "common/duration.hpp"
#include "provider/json_body.hpp"
#include "provider/provider_core.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {

Decision ProviderCore::control(const HttpRequest& request) {
  if (config_.control_token) {
    const auto authorization = request.headers.find("Authorization");
    // The scheme is case-insensitive (RFC 6750, RFC 9110); the token is not.
    const auto is_token = [&](const std::string& value) {
      return value.size() > 7 && strncasecmp(value.c_str(), "Bearer ", 7) == 0 &&
             equal_in_constant_time(std::string_view(value).substr(7), *config_.control_token);
    };
    if (authorization == request.headers.end() || !is_token(authorization->second)) {
      Decision refused = error(401, "unauthorized", "send Authorization: Bearer <control token>");
      refused.headers.emplace("WWW-Authenticate", "Bearer");
      return refused;
    }
  }

  const std::string& path = request.path;
  const std::string& method = request.method;
  const auto only = [&](const char* allowed, auto&& handler) -> Decision {
    const bool head_as_get = method == "HEAD" && std::string_view(allowed) == "GET";
    return method == allowed || head_as_get ? handler()
                                            : method_not_allowed(allowed, errors_);
  };

  if (path == "/_test/faults") {
    if (method == "POST") return install_plan(request.body);
    if (method == "GET" || method == "HEAD") return json_response(200, plan_.to_json());
    return method_not_allowed("GET, POST", errors_);
  }
  if (path == "/_test/jobs")
    return only("GET", [&] { return json_response(200, jobs_json_locked()); });
  if (path == "/_test/journal") {
    return only("GET", [&] { return json_response(200, journal_json_locked()); });
  }
  if (path == "/_test/reset") return only("POST", [&] { return reset(request.body); });
  if (path == "/_test/clock") return only("POST", [&] { return advance_clock(request.body); });
  for (const ControlEndpoint& endpoint : config_.control_endpoints) {
    if (path != endpoint.path) continue;
    return only("GET", [&] {
      try {
        ControlAnswer answer = endpoint.answer(request.query, journal_, config_);
        return Decision{.status = 200,
                        .body = std::move(answer.body),
                        .content_type = std::move(answer.content_type)};
      } catch (const std::invalid_argument& problem) {
        return error(400, endpoint.error_code, problem.what());
      }
    });
  }
  return error(404, "not_found", "unknown control endpoint " + path);
}

Decision ProviderCore::install_plan(const std::string& body) {
  try {
    // Parse everything before touching the plan in force: a bad entry changes nothing.
    plan_ = FaultPlan::from_json(parse_object_body(body));
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_fault_plan", problem.what());
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
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_reset", problem.what());
  }
  // The clock is left as it is: provider time never runs backwards.
  seed_ = seed;
  store_.clear();
  plan_ = FaultPlan{};
  job_ids_ = JobIdGenerator(seed_);
  journal_.clear();
  in_flight_.clear();
  creates_by_key_.clear();
  lookups_by_key_.clear();
  return json_response(200, {{"reset", true}, {"seed", seed_}});
}

Decision ProviderCore::advance_clock(const std::string& body) {
  try {
    const nlohmann::json options = parse_object_body(body);
    for (const auto& [field, value] : options.items()) {
      if (field != "advance") throw std::invalid_argument("unknown field \"" + field + "\"");
    }
    if (!options.contains("advance") || !options["advance"].is_string()) {
      throw std::invalid_argument("expected {\"advance\": \"<duration>\"}, such as \"25h\"");
    }
    clock_offset_ += parse_duration(options["advance"].get<std::string>());  // under the lock
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_clock", problem.what());
  }
  return json_response(200, {{"advancedMs", clock_offset_.count()}});
}

}  // namespace retryproof::provider
