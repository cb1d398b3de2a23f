// Helpers the ProviderCore unit tests share: requests through ProviderCore::handle() at a
// virtual time, their answers parsed, the control plane (/_test/...) read and driven, and
// what a fault plan or a shape is refused with.
// Header-only: every function is inline.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "provider/fault_plan.hpp"
#include "provider/http_types.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::provider::testing {

inline const std::string kOrder42 = R"({"orderId":"order-42","paymentId":"pay-42","amount":120})";

// A provider with this seed, whose log lines go to *log_lines when it is given.
inline ProviderConfig config_with(std::uint64_t seed,
                                  std::vector<std::string>* log_lines = nullptr) {
  ProviderConfig config;
  config.seed = seed;
  if (log_lines != nullptr) {
    config.log = [log_lines](const std::string& line) { log_lines->push_back(line); };
  }
  return config;
}

// ---- requests --------------------------------------------------------------------------

inline HttpRequest make_request(std::string method, std::string path, std::string body = {}) {
  HttpRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  return request;
}

// POST /jobs with an Idempotency-Key header.
inline Decision post(ProviderCore& core, const std::string& key, const std::string& body,
                     Millis now = Millis{0}) {
  HttpRequest request = make_request("POST", "/jobs", body);
  request.headers.emplace("Idempotency-Key", key);
  return core.handle(request, now);
}

// POST /jobs without an Idempotency-Key header.
inline Decision post_without_key(ProviderCore& core, const std::string& body,
                                 Millis now = Millis{0}) {
  return core.handle(make_request("POST", "/jobs", body), now);
}

inline Decision call(ProviderCore& core, const std::string& method, const std::string& path,
                     const std::string& body = {}, Millis now = Millis{0}) {
  return core.handle(make_request(method, path, body), now);
}

inline Decision get(ProviderCore& core, const std::string& path, Millis now = Millis{0}) {
  return call(core, "GET", path, {}, now);
}

inline Decision lookup(ProviderCore& core, const std::string& key, Millis now = Millis{0}) {
  return get(core, "/jobs/by-idempotency-key/" + key, now);
}

// A control call at time 0, with an Authorization header when one is given.
inline Decision control(ProviderCore& core, const std::string& method, const std::string& path,
                        const std::string& body = {},
                        const std::optional<std::string>& authorization = std::nullopt) {
  HttpRequest request = make_request(method, path, body);
  if (authorization) request.headers.emplace("Authorization", *authorization);
  return core.handle(request, Millis{0});
}

// ---- answers ---------------------------------------------------------------------------

// The body, whole: a streamed one (a long journal) read to its end, as the server does.
inline nlohmann::json body_of(const Decision& decision) {
  std::string body = decision.body;
  if (decision.body_chunks) {
    while (const auto chunk = decision.body_chunks())
      body += *chunk;
  }
  return nlohmann::json::parse(body);
}

inline std::optional<std::string> header_of(const Decision& decision, const std::string& name) {
  const auto found = decision.headers.find(name);
  if (found == decision.headers.end()) return std::nullopt;
  return found->second;
}

// ---- the control plane -----------------------------------------------------------------

// How much install() and stored_count() check of the control answer they get: `full` checks
// all of it (install: status 200 and the plan echoed back; stored_count: status 200),
// `minimal` only what they cannot do without (install: status 200; stored_count: nothing).
enum class Checks { full, minimal };

// POST /_test/faults with a script of names; the answer must be 200 (and, with full checks,
// echo the plan).
inline void install(ProviderCore& core, const std::vector<std::string>& names,
                    Checks checks = Checks::full) {
  const nlohmann::json plan = {{"faults", names}};
  const Decision decision = call(core, "POST", "/_test/faults", plan.dump());
  ASSERT_EQ(decision.status, 200) << decision.body;
  if (checks == Checks::full) {
    EXPECT_EQ(body_of(decision), plan);
  }
}

// GET /_test/jobs, which must answer 200: {"count": n, "jobs": [...]}.
inline nlohmann::json jobs_of(ProviderCore& core,
                              const std::optional<std::string>& auth = std::nullopt) {
  const Decision decision = control(core, "GET", "/_test/jobs", {}, auth);
  EXPECT_EQ(decision.status, 200) << decision.body;
  return body_of(decision);
}

// GET /_test/journal, which must answer 200: {"entries": [...]}.
inline nlohmann::json journal_of(ProviderCore& core,
                                 const std::optional<std::string>& auth = std::nullopt) {
  const Decision decision = control(core, "GET", "/_test/journal", {}, auth);
  EXPECT_EQ(decision.status, 200) << decision.body;
  return body_of(decision);
}

inline nlohmann::json journal_entries(ProviderCore& core,
                                      const std::optional<std::string>& auth = std::nullopt) {
  return journal_of(core, auth).at("entries");
}

// The number of jobs stored (with full checks, GET /_test/jobs must answer 200).
inline std::size_t stored_count(ProviderCore& core, Checks checks = Checks::full) {
  const nlohmann::json jobs =
      checks == Checks::full ? jobs_of(core) : body_of(call(core, "GET", "/_test/jobs"));
  return jobs.at("count").get<std::size_t>();
}

// ---- fault plans ---------------------------------------------------------------------

// The message of the std::invalid_argument that FaultPlan::from_json throws for `body`; a test
// failure, and "", when it accepts it.
inline std::string fault_plan_error(const nlohmann::json& body) {
  try {
    const FaultPlan plan = FaultPlan::from_json(body);
    ADD_FAILURE() << "from_json accepted " << body.dump() << " as " << plan.to_json().dump();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return {};
}

// ---- shapes --------------------------------------------------------------------------

// What reading `document` as "shape.json" is refused with, or "(accepted)".
inline std::string shape_load_error(const nlohmann::json& document) {
  try {
    api_shape_from_json(document, "shape.json");
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(accepted)";
}

}  // namespace retryproof::provider::testing
