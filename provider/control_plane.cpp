// The /_test/ endpoints: how tests and scenario runners steer and inspect the provider.
// Control calls are not journaled: the journal is the evidence of what clients did.
#include <algorithm>
#include <functional>
#include <stdexcept>

#include "common/json_text.hpp"
#include "provider/control_requests.hpp"
#include "provider/json_body.hpp"
#include "provider/provider_core.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {

Decision ProviderCore::control(const HttpRequest& request, Millis now) {
  const ControlEndpoint* endpoint = control_endpoint_at(config_.control_endpoints, request.path);
  const bool needs_token = endpoint == nullptr || endpoint->needs_token;
  if (needs_token && config_.control_token &&
      !carries_bearer_token(request.headers, *config_.control_token)) {
    Decision refused = error(401, "unauthorized", "send Authorization: Bearer <control token>");
    refused.headers.emplace("WWW-Authenticate", "Bearer");
    return refused;
  }

  const std::string& path = request.path;
  const std::string& method = request.method;
  const auto only = [&](const char* allowed, auto&& handler) -> Decision {
    const bool head_as_get = method == "HEAD" && std::string_view(allowed) == "GET";
    return method == allowed || head_as_get ? handler() : method_not_allowed(allowed, errors_);
  };

  if (path == "/_test/faults") {
    if (method == "POST") return install_plan(request.body, now);
    if (method == "GET" || method == "HEAD") return json_response(200, plan_.shown_json());
    return method_not_allowed("GET, POST", errors_);
  }
  if (path == "/_test/jobs") return only("GET", [&] { return read_jobs(); });
  if (path == "/_test/journal") return only("GET", [&] { return read_journal(request.query); });
  if (path == "/_test/reset") return only("POST", [&] { return reset(request.body); });
  if (path == "/_test/clock") return only("POST", [&] { return advance_clock(request.body); });
  if (endpoint != nullptr) {
    return only("GET", [&] {
      return answer_control_endpoint(
          *endpoint, request.query,
          endpoint->reads_journal ? journal_.memory() : std::vector<JournalEntry>{},
          {.seed = config_.seed, .operation_field = config_.operation_field, .api = &config_.api},
          ErrorStyle{.shape = &config_.api, .format = errors_});
    });
  }
  return error(404, "not_found", "unknown control endpoint " + path);
}

const ControlEndpoint* control_endpoint_at(const std::vector<ControlEndpoint>& endpoints,
                                           std::string_view path) {
  const auto found =
      std::find_if(endpoints.begin(), endpoints.end(),
                   [&](const ControlEndpoint& endpoint) { return endpoint.path == path; });
  return found == endpoints.end() ? nullptr : &*found;
}

Decision answer_control_endpoint(const ControlEndpoint& endpoint, const std::string& query,
                                 const std::vector<JournalEntry>& journal,
                                 const ControlContext& context, const ErrorStyle& errors) {
  try {
    ControlAnswer answer = endpoint.answer(query, journal, context);
    return Decision{.status = 200,
                    .headers = std::move(answer.headers),
                    .body = std::move(answer.body),
                    .content_type = std::move(answer.content_type)};
  } catch (const std::invalid_argument& problem) {
    return errors.error(400, endpoint.error_code, problem.what());
  }
}

namespace {

// How many entries one chunk of a streamed journal carries under the lock: small enough
// that a request waiting for the lock waits for one chunk, not the whole journal.
constexpr std::size_t kEntriesPerChunk = 512;

// A 200 whose body is `opening`, then each run of comma-joined items `next_items` returns
// (it locks what it reads; nothing means the end), then "]}": a JSON array streamed a chunk
// at a time, the journal's and the jobs' framing in one place.
Decision streamed_array(std::string opening,
                        std::function<std::optional<std::string>()> next_items) {
  Decision decision;
  decision.status = 200;
  decision.body_chunks = [opening = std::move(opening), next_items = std::move(next_items),
                          opened = false, wrote = false,
                          closed = false]() mutable -> std::optional<std::string> {
    if (closed) return std::nullopt;
    if (!opened) {
      opened = true;
      return std::move(opening);
    }
    if (std::optional<std::string> items = next_items()) {
      std::string chunk = wrote ? "," + *items : std::move(*items);
      wrote = true;
      return chunk;
    }
    closed = true;
    return std::string("]}");
  };
  return decision;
}

}  // namespace

// GET /_test/journal: the whole journal, streamed a chunk at a time so that no copy of it is
// made under the lock; or, with ?after=SEQ&limit=N, one page of entries after SEQ, and
// "next" (the seq to pass as `after`) when more follow.
Decision ProviderCore::read_journal(std::string_view query) {
  JournalPageQuery page_query;
  try {
    page_query = read_journal_query(query);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_journal_query", problem.what());
  }
  const std::uint64_t after = page_query.after;
  const std::uint64_t limit = page_query.limit;
  // Entries spilled to the --journal-file are read back from it: a reader sees every entry.
  // Dropped ones (a --journal-limit without a file) are counted in "dropped".
  const std::size_t total = journal_.count();
  const std::uint64_t last_seq = journal_.next_seq() - 1;
  const std::uint64_t dropped = journal_.dropped();
  if (limit != 0) {
    try {
      std::vector<JournalEntry> entries = journal_.read(after, static_cast<std::size_t>(limit));
      const std::optional<std::uint64_t> next = !entries.empty() && entries.back().seq < last_seq
                                                    ? std::optional(entries.back().seq)
                                                    : std::nullopt;
      // The entries are copied under the lock; their JSON, most of a page's cost, is written
      // by the server thread after it (what a live page following the journal costs others).
      Decision decision;
      decision.body_chunks = [entries = std::move(entries), total, next, dropped,
                              written = false]() mutable -> std::optional<std::string> {
        if (written) return std::nullopt;
        written = true;
        nlohmann::json page = {{"count", total}, {"entries", entries}};
        if (next) page["next"] = *next;
        if (dropped > 0) page["dropped"] = dropped;
        return compact_json(page);
      };
      return decision;
    } catch (const std::exception& problem) {  // the spill file was changed under us
      return error(500, "internal_error", problem.what());
    }
  }
  // Streamed: the entries as they stand when each chunk is read. A reset meanwhile ends the
  // stream early rather than mixing two journals.
  std::string opening = "{\"count\":" + std::to_string(total) + ",";
  if (dropped > 0) opening += "\"dropped\":" + std::to_string(dropped) + ",";
  opening += "\"entries\":[";
  return streamed_array(
      std::move(opening),
      [this, last_seq, resets = resets_,
       after = std::uint64_t{0}]() mutable -> std::optional<std::string> {
        std::lock_guard lock(mutex_);
        const std::uint64_t from = std::max(after, journal_.dropped());
        if (resets != resets_ || from >= last_seq) return std::nullopt;
        const auto count =
            static_cast<std::size_t>(std::min<std::uint64_t>(kEntriesPerChunk, last_seq - from));
        try {
          std::string items = journal_.text(from, count);
          after = from + count;
          return items;
        } catch (const std::exception&) {  // the spill file was changed under us: end here
          return std::nullopt;
        }
      });
}

// GET /_test/jobs: every job, streamed like the journal, a chunk of jobs at a time under the
// lock, so that a large store is never copied whole while requests wait. A job freed for
// room (--max-keys) before its chunk is read is left out; a reset ends the stream early.
Decision ProviderCore::read_jobs() {
  const std::uint64_t freed = store_.freed_jobs();  // the index of the first job held
  const std::uint64_t end = freed + store_.size();
  std::string opening = "{\"count\":" + std::to_string(store_.size()) + ",";
  if (freed > 0) opening += "\"freed\":" + std::to_string(freed) + ",";
  opening += "\"jobs\":[";
  return streamed_array(
      std::move(opening),
      [this, end, resets = resets_, next = freed]() mutable -> std::optional<std::string> {
        std::lock_guard lock(mutex_);
        const std::uint64_t first = store_.freed_jobs();
        next = std::max(next, first);
        const std::uint64_t stop = std::min({end, first + store_.size(), next + kEntriesPerChunk});
        if (resets != resets_ || next >= stop) return std::nullopt;
        std::string items;
        for (; next < stop; ++next) {
          const StoredJob stored = store_.at(static_cast<std::size_t>(next - first));
          if (!items.empty()) items += ',';
          items += compact_json(
              nlohmann::json(JobRecord{stored.id, stored.key, nlohmann::json::parse(stored.body)}));
        }
        return items;
      });
}

Decision ProviderCore::install_plan(const std::string& body, Millis now) {
  try {
    // Parse everything before touching the plan in force: a bad entry changes nothing.
    plan_ = FaultPlan::from_body(parse_object_body(body), plan_, now);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_fault_plan", problem.what());
  }
  return json_response(200, plan_.to_json());
}

Decision ProviderCore::reset(const std::string& body) {
  std::uint64_t seed = seed_;
  try {
    seed = read_reset_body(body).value_or(seed_);
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_reset", problem.what());
  }
  // The clock is left as it is: provider time never runs backwards.
  seed_ = seed;
  store_.clear();
  plan_ = FaultPlan{};
  job_ids_ = JobIdGenerator(seed_);
  journal_.clear();
  ++resets_;
  in_flight_.clear();
  creates_by_key_.clear();
  lookups_by_key_.clear();
  return json_response(200, {{"reset", true}, {"seed", seed_}});
}

Decision ProviderCore::advance_clock(const std::string& body) {
  try {
    clock_offset_ += read_clock_body(body);  // under the lock
  } catch (const std::invalid_argument& problem) {
    return error(400, "invalid_clock", problem.what());
  }
  return json_response(200, {{"advancedMs", clock_offset_.count()}});
}

}  // namespace retryproof::provider
