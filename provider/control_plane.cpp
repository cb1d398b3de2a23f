#include "provider/control_plane.hpp"

#include <algorithm>
#include <stdexcept>

#include "provider/control_requests.hpp"
#include "provider/health.hpp"
#include "provider/json_body.hpp"

namespace retryproof::provider {
namespace {

// How many entries the verdicts' copy of the journal takes per turn of the lock: a request
// waiting for it waits for one chunk, not for the whole journal.
constexpr std::size_t kSnapshotChunk = 256;

// Whether `methods` ("GET, POST") admits `method`; GET admits HEAD.
bool allows(std::string_view methods, const std::string& method) {
  const auto listed = [&](std::string_view name) {
    for (std::size_t start = 0; start < methods.size();) {
      const std::size_t end = std::min(methods.find(", ", start), methods.size());
      if (methods.substr(start, end - start) == name) return true;
      start = end + 2;
    }
    return false;
  };
  return listed(method) || (method == "HEAD" && listed("GET"));
}

}  // namespace

ControlPlane::ControlPlane(ControlTarget& target, ControlPlaneConfig config)
    : target_(target), config_(std::move(config)) {}

Decision ControlPlane::error(int status, std::string_view code, std::string_view detail) const {
  return config_.errors.error(status, code, detail);
}

Decision ControlPlane::handle(const HttpRequest& request, Millis now) {
  std::optional<Decision> answered;
  respond(
      request, now, false, [&](Decision decision) { answered = std::move(decision); },
      [](const std::function<void()>& task) { task(); });
  return std::move(*answered);
}

void ControlPlane::handle_async(const HttpRequest& request, Millis now,
                                const std::function<void(Decision)>& answer_with,
                                const Later& later) {
  respond(request, now, true, answer_with, later);
}

void ControlPlane::respond(const HttpRequest& request, Millis now, bool from_network,
                           const std::function<void(Decision)>& answer, const Later& later) {
  const ControlEndpoint* endpoint = endpoint_at(request.path);
  if (auto screened = screen(request, endpoint, from_network)) return answer(std::move(*screened));
  if (endpoint == nullptr) return answer(dispatch(request, now));
  if (!allows("GET", request.method))
    return answer(method_not_allowed("GET", config_.errors.format));
  ControlContext context = target_.control_context();
  auto journal = std::make_shared<const std::vector<JournalEntry>>(
      endpoint->reads_journal ? journal_snapshot(context.journaled) : std::vector<JournalEntry>{});
  later([this, endpoint, query = request.query, journal, context, answer] {
    answer(answer_endpoint(*endpoint, query, *journal, context));
  });
}

const ControlEndpoint* ControlPlane::endpoint_at(const std::string& path) const {
  const auto found =
      std::find_if(config_.endpoints.begin(), config_.endpoints.end(),
                   [&](const ControlEndpoint& candidate) { return candidate.path == path; });
  return found == config_.endpoints.end() ? nullptr : &*found;
}

std::optional<Decision> ControlPlane::screen(const HttpRequest& request,
                                             const ControlEndpoint* endpoint,
                                             bool from_network) const {
  if (guard_ && from_network) {
    if (const auto refusal = guard_->check(request.headers))
      return error_response(refusal->status, refusal->code, refusal->detail);
  }
  // Past the guard, before the token: a readiness probe has none.
  if (auto health = answer_health(request)) return health;
  if (!request.malformed.empty()) return error(400, "bad_request", request.malformed);
  const bool needs_token = endpoint == nullptr || endpoint->needs_token;
  if (!needs_token || !config_.token) return std::nullopt;
  if (const auto problem = token_problem(request.headers, *config_.token)) {
    Decision refused = error(401, "unauthorized", token_problem_detail(*problem));
    refused.headers.emplace("WWW-Authenticate", token_challenge(*problem));
    return refused;
  }
  return std::nullopt;
}

Decision ControlPlane::dispatch(const HttpRequest& request, Millis now) {
  // The control plane's own endpoints: a path, the methods it answers, and how.
  struct ControlRoute {
    std::string_view path;
    std::string_view methods;  // as a 405's Allow header lists them
    std::function<Decision()> answer;
  };
  const ControlRoute routes[] = {
      {"/_test/faults", "GET, POST", [&] { return faults(request, now); }},
      {"/_test/jobs", "GET", [&] { return jobs_listing(target_); }},
      {"/_test/journal", "GET",
       [&] { return journal_listing(target_, request.query, config_.errors); }},
      {"/_test/reset", "POST", [&] { return reset(request.body); }},
      {"/_test/clock", "POST", [&] { return advance_clock(request.body); }},
  };
  for (const ControlRoute& route : routes) {
    if (route.path != request.path) continue;
    if (!allows(route.methods, request.method))
      return method_not_allowed(route.methods, config_.errors.format);
    return route.answer();
  }
  return error(404, "not_found", "unknown control endpoint " + request.path);
}

Decision ControlPlane::faults(const HttpRequest& request, Millis now) {
  if (request.method != "POST") return json_response(200, target_.fault_plan());
  try {
    // Parsed whole before it replaces the plan in force: a bad entry changes nothing.
    return json_response(200, target_.install_plan(parse_object_body(request.body), now));
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_fault_plan", problem.what());
  }
}

Decision ControlPlane::reset(const std::string& body) {
  std::optional<std::uint64_t> seed;
  try {
    seed = read_reset_body(body);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_reset", problem.what());
  }
  // The clock is left as it is: a server's time never runs backwards.
  return json_response(200, {{"reset", true}, {"seed", target_.reset(seed)}});
}

Decision ControlPlane::advance_clock(const std::string& body) {
  Millis by{0};
  try {
    by = read_clock_body(body);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_clock", problem.what());
  }
  return json_response(200, {{"advancedMs", target_.advance_clock(by).count()}});
}

Decision ControlPlane::answer_endpoint(const ControlEndpoint& endpoint, const std::string& query,
                                       const std::vector<JournalEntry>& journal,
                                       const ControlContext& context) const {
  try {
    ControlAnswer answer = endpoint.answer(query, journal, context);
    return Decision{.status = 200,
                    .headers = std::move(answer.headers),
                    .body = std::move(answer.body),
                    .content_type = std::move(answer.content_type)};
  } catch (const std::invalid_argument& problem) {
    return error(400, endpoint.error_code, problem.what());
  }
}

std::vector<JournalEntry> ControlPlane::journal_snapshot(std::uint64_t& journaled) const {
  // The entries in memory up to the newest at the start, a chunk per turn of the lock. A
  // reset meanwhile starts the copy again, of the journal after it; entries that moved out
  // of memory meanwhile (--journal-limit) are not judged, and `journaled` says so.
  std::vector<JournalEntry> entries;
  std::optional<std::uint64_t> resets;
  std::uint64_t after = 0;
  for (bool more = true; more;) {
    target_.inspect([&](const ControlledState& state) {
      if (resets != state.resets) {
        resets = state.resets;
        journaled = state.journal.next_seq() - 1;
        entries.clear();
        after = 0;
      }
      std::vector<JournalEntry> chunk = state.journal.memory(after, kSnapshotChunk);
      const auto past = std::find_if(chunk.begin(), chunk.end(), [&](const JournalEntry& entry) {
        return entry.seq > journaled;
      });
      more = past == chunk.end() && !chunk.empty();
      chunk.erase(past, chunk.end());
      if (!chunk.empty()) after = chunk.back().seq;
      entries.insert(entries.end(), std::make_move_iterator(chunk.begin()),
                     std::make_move_iterator(chunk.end()));
      more = more && after < journaled;
    });
  }
  return entries;
}

}  // namespace retryproof::provider
