// The proxy's /_test/ endpoints: the provider's, over the proxy's plan, journal and the
// jobs the upstream returned. Control calls are not journaled, nor forwarded: the
// upstream's own control plane, if it has one, is reached directly.
#include <algorithm>
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
  const provider::ControlEndpoint* endpoint =
      provider::control_endpoint_at(config_.control_endpoints, request.path);
  if ((endpoint == nullptr || endpoint->needs_token) && config_.control_token &&
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
    if (request.method == "GET" || request.method == "HEAD")
      return json_response(200, plan_.shown_json());  // the plan in force, as the provider's
    if (request.method != "POST") return provider::method_not_allowed("GET, POST", errors_.format);
    try {
      // Parsed whole before it replaces the plan in force: a bad entry changes nothing.
      plan_ = provider::FaultPlan::from_body(provider::parse_object_body(request.body), plan_,
                                             now + clock_offset_);
    } catch (const std::invalid_argument& problem) {
      return error(400, "invalid_fault_plan", problem.what());
    }
    return json_response(200, plan_.to_json());
  }
  if (path == "/_test/jobs")
    return only("GET", [&] { return json_response(200, jobs_json_locked()); });
  if (path == "/_test/journal") return only("GET", [&] { return read_journal(request.query); });
  if (path == "/_test/reset") return only("POST", [&] { return reset(request.body); });
  if (path == "/_test/clock") return only("POST", [&] { return advance_clock(request.body); });
  if (endpoint != nullptr) {
    return only("GET", [&] {
      // The provider's entries of the proxy's journal in memory, as the provider judges its own.
      return provider::answer_control_endpoint(
          *endpoint, request.query,
          endpoint->reads_journal ? journal_.memory() : std::vector<provider::JournalEntry>{},
          {.server = "proxy",
           .seed = seed_,
           .operation_field = config_.operation_field,
           .api = &config_.api},
          errors_);
    });
  }
  return error(404, "not_found", "unknown control endpoint " + path);
}

// GET /_test/journal, as the provider's: the whole journal, or with ?after=SEQ&limit=N a page
// of the entries after SEQ, and "next" while more follow (what the live page follows).
Decision ProxyCore::read_journal(std::string_view query) const {
  provider::JournalPageQuery page;
  try {
    page = provider::read_journal_query(query);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_journal_query", problem.what());
  }
  if (page.limit == 0) return json_response(200, journal_json_locked());
  // Seqs run without gaps, so a page is the `limit` entries after `after` (or after those
  // dropped), in the store's text with the upstream's fields.
  const std::uint64_t last_seq = journal_.next_seq() - 1;
  const std::uint64_t from = std::max<std::uint64_t>(page.after, journal_.dropped());
  const std::uint64_t count = from < last_seq ? std::min(page.limit, last_seq - from) : 0;
  nlohmann::json answer = {
      {"count", journal_.count()},
      {"entries", nlohmann::json::parse(
                      "[" + (count == 0 ? std::string{} : journal_.text(from, count)) + "]")}};
  if (count > 0 && from + count < last_seq) answer["next"] = from + count;
  if (journal_.dropped() > 0) answer["dropped"] = journal_.dropped();
  return json_response(200, answer);
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
