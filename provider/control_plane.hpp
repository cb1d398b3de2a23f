// The control plane (/_test/), one for the provider and the proxy: how tests, scenario runners,
// the live page and people steer and inspect a server. It guards (the Host and Origin of a web
// page, the control token, the method), answers health, faults, jobs, journal, reset, clock
// and the endpoints of layers above the core (verdicts, the page), and reads its core only
// through ControlTarget, a bounded piece at a time: no answer holds the core's lock for longer
// than one chunk of a listing, and JSON is written after the lock.
// Control calls are not journaled: the journal is the evidence of what clients did.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/millis.hpp"
#include "provider/api_shape.hpp"
#include "provider/control_plane_guard.hpp"
#include "provider/http_types.hpp"
#include "provider/idempotency_store.hpp"
#include "provider/journal.hpp"
#include "provider/journal_store.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {

// What an endpoint of a layer above the core answers.
struct ControlAnswer {
  std::string body;
  std::string content_type = "application/json";
  Headers headers = {};  // beside Content-Type: a page's Content-Security-Policy
};
// Who answers the endpoint: the provider, or a proxy that serves the same control plane.
struct ControlContext {
  std::string_view server = "provider";  // "provider", "proxy": for the answer's words
  std::uint64_t seed = 0;
  std::optional<std::string> operation_field;  // what the journal records, if anything
  const ApiShape* api = nullptr;               // the API it speaks (jobs when null)
  // Entries journaled in all, up to the newest the endpoint was given (seqs 1 to this): the
  // endpoint's journal holds those in memory, which may be fewer ("judged N of M entries").
  std::uint64_t journaled = 0;
};
// A /_test/ endpoint answered by a layer above the core, which the core does not link: GET
// /_test/verdicts judges the journal with the verdict checkers (scenarios/judge/), the live
// page is served by ui/. It is answered after the lock, on a copy of the journal in memory
// taken a bounded chunk at a time, and must not call back into the core. A
// std::invalid_argument it throws is a 400 with `error_code` and its text.
struct ControlEndpoint {
  std::string path;        // "/_test/verdicts"; GET (and HEAD) only
  std::string error_code;  // "invalid_verdicts_query"
  std::function<ControlAnswer(const std::string& query, const std::vector<JournalEntry>& journal,
                              const ControlContext& context)>
      answer;
  // False for a static asset that holds no data (the live page's HTML, script and style): a
  // browser cannot send a bearer token when it opens a page, and the page asks for the token
  // itself, for its data calls. The Host and Origin guard applies to it as to every call.
  bool needs_token = true;
  // False when `answer` never reads the journal: it is then given an empty one, so that
  // serving it copies nothing however long the journal is.
  bool reads_journal = true;
};

// What the control plane reads of a core, under the core's lock.
struct ControlledState {
  const JournalStore& journal;
  const IdempotencyStore& jobs;
  std::uint64_t resets = 0;  // how many resets so far: a listing stops at one
};

// What a core gives its control plane. Each call takes the core's lock for itself.
class ControlTarget {
 public:
  virtual ~ControlTarget() = default;
  virtual ControlContext control_context() const = 0;
  // Calls `read` under the core's lock, with what it holds. `read` must be bounded.
  virtual void inspect(const std::function<void(const ControlledState&)>& read) const = 0;
  virtual nlohmann::json fault_plan() const = 0;
  // Replaces the plan (or adds an outage from `now`, the server's time) from the body of
  // POST /_test/faults; the plan now in force. Throws std::invalid_argument, changing nothing.
  virtual nlohmann::json install_plan(const nlohmann::json& body, Millis now) = 0;
  // Empties the core (store, plan, journal, requests on their way), with a new seed if given;
  // the seed now in force.
  virtual std::uint64_t reset(std::optional<std::uint64_t> seed) = 0;
  // Moves the core's clock forward; how far it has been moved in all.
  virtual Millis advance_clock(Millis by) = 0;
};

struct ControlPlaneConfig {
  std::optional<std::string> token;        // "Authorization: Bearer <token>" on every call
  std::vector<ControlEndpoint> endpoints;  // beside the control plane's own
  ErrorStyle errors;                       // the core's error format
};

class ControlPlane {
 public:
  ControlPlane(ControlTarget& target, ControlPlaneConfig config);

  // Refuses control calls from web pages (ControlPlaneGuard) once the server knows its port.
  // Set before the server serves.
  void guard_with(ControlPlaneGuard guard) { guard_.emplace(std::move(guard)); }

  // Answers a /_test/ request made in process (a core's tests, the simulation, an embedding
  // helper): no web page can send one, so the guard is not asked; the token is. `now` is the
  // caller's time, before /_test/clock moved it.
  Decision handle(const HttpRequest& request, Millis now);
  // Answers one that came over the network, for a server: the guard is asked first. An
  // endpoint that reads the journal (verdicts) copies it here, a chunk per turn of the lock,
  // and is answered by a task given to `later` (a BackgroundWorker's post: a judgement takes
  // a processor for seconds, off the I/O threads). Every other call is answered before it
  // returns.
  using Later = std::function<void(std::function<void()>)>;
  void handle_async(const HttpRequest& request, Millis now,
                    const std::function<void(Decision)>& answer, const Later& later);

 private:
  // What is answered before any endpoint is: a web page's refusal, health, a malformed
  // request, a missing token. Nothing when the request goes on.
  std::optional<Decision> screen(const HttpRequest& request, const ControlEndpoint* endpoint,
                                 bool from_network) const;
  void respond(const HttpRequest& request, Millis now, bool from_network,
               const std::function<void(Decision)>& answer, const Later& later);
  const ControlEndpoint* endpoint_at(const std::string& path) const;
  Decision dispatch(const HttpRequest& request, Millis now);
  Decision faults(const HttpRequest& request, Millis now);
  Decision reset(const std::string& body);
  Decision advance_clock(const std::string& body);
  Decision answer_endpoint(const ControlEndpoint& endpoint, const std::string& query,
                           const std::vector<JournalEntry>& journal,
                           const ControlContext& context) const;
  // The journal in memory, copied a chunk at a time (none when `endpoint` reads none).
  std::vector<JournalEntry> journal_snapshot(std::uint64_t& journaled) const;
  Decision error(int status, std::string_view code, std::string_view detail = {}) const;

  ControlTarget& target_;
  const ControlPlaneConfig config_;
  std::optional<ControlPlaneGuard> guard_;
};

// GET /_test/journal and GET /_test/jobs (control_listings.cpp): streamed whole, or a page.
Decision journal_listing(const ControlTarget& target, std::string_view query,
                         const ErrorStyle& errors);
Decision jobs_listing(const ControlTarget& target);
// The same, built whole: {"count","entries"} with the loss fields, {"count","jobs"} with
// "freed". For tests and the demo, reading a small journal in process.
nlohmann::json journal_document(const ControlTarget& target);
nlohmann::json jobs_document(const ControlTarget& target);

}  // namespace retryproof::provider
