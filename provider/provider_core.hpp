// The misbehaving provider, without sockets: given a request and the time, it decides
// what to answer (or whether to drop, reset, truncate or hold the connection), updates
// the store and the fault plan, and journals the request. Thread-safe: one lock
// serialises every request, so the first request for a new key is the only one that
// creates a job.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "provider/api_shape.hpp"
#include "provider/attempt_counts.hpp"
#include "provider/control_plane.hpp"
#include "provider/fault_plan.hpp"
#include "provider/http_types.hpp"
#include "provider/idempotency_front_end.hpp"
#include "provider/idempotency_store.hpp"
#include "provider/job_ids.hpp"
#include "provider/job_record.hpp"
#include "provider/journal.hpp"
#include "provider/journal_store.hpp"
#include "provider/profile.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {

struct ProviderConfig {
  std::uint64_t seed = 0;
  std::size_t max_body_bytes = 1024 * 1024;
  Profile profile = Profile::baseline;
  ApiShape api = jobs_shape();    // the routes, key place, encodings and bodies it speaks
  std::optional<Millis> key_ttl;  // keys never expire when empty
  // The most jobs (each with its key) held at once, held requests included: a new operation
  // past it is refused with 507 capacity_exhausted, once the jobs of expired keys are freed.
  // Replays, lookups and the control plane are unaffected. Unbounded when empty.
  std::optional<std::size_t> max_keys;
  JournalLimits journal;  // entries in memory, and where older ones go (--journal-limit, -file)
  // A repeated key replays (or is refused). False: every create is a new job, and keys are
  // only recorded for lookup, as a provider with a searchable client reference does.
  bool enforce_keys = true;
  std::optional<std::string> control_token;  // /_test/ needs "Authorization: Bearer <token>"
  FaultPlan initial_plan;                    // in force at start (a reset empties it)
  // The payload field whose value each create's journal entry records as its `operation`
  // (--operation-field orderId), so that traffic can be judged by business operation rather
  // than by the keys a service chose. A top-level name, or a JSON Pointer ("/metadata/orderId").
  std::optional<std::string> operation_field;
  std::vector<ControlEndpoint> control_endpoints;  // beside the core's own /_test/ endpoints
  // Receives one line per data-plane request, in the original provider's words
  // ("[provider] key=K NEW fault=F"). Payloads are never logged. May be empty.
  std::function<void(const std::string&)> log;
};

class ProviderCore final : public ControlTarget {
 public:
  explicit ProviderCore(ProviderConfig config);
  ProviderCore(const ProviderCore&) = delete;
  ProviderCore& operator=(const ProviderCore&) = delete;

  // `now` is the time since the provider started; /_test/clock moves it forward.
  Decision handle(const HttpRequest& request, Millis now);

  // Ends the wait of a request held in flight (Decision::pending_commit): commits its
  // job and returns the response to deliver.
  Decision complete(std::uint64_t pending_commit, Millis now);

  // An error the HTTP library answered before the core saw the request (a body over
  // the limit, a request that is not HTTP), in this provider's error shape.
  Decision library_error(int status) const;

  // The client of a held request closed its connection before the answer: it stopped
  // waiting at `now`. Interpreters of a decision call it when they can see it.
  void abandoned(std::uint64_t seq, Millis now);
  // Over HTTPS, the server ended the TLS stream of `seq`'s answer with a close_notify.
  void close_notify_sent(std::uint64_t seq);
  // Journals a request the server refused before the core saw it: in a storm, load too.
  void record_refused(const RefusedRequest& request, Millis now);

  std::size_t job_count() const;
  // How far the provider has come: what a waiter watches.
  struct Progress {
    std::size_t jobs = 0;
    std::size_t journal_entries = 0;
  };
  // Waits until `reached(progress)` holds, re-checked whenever a request is journaled or a
  // job stored; false if `deadline` passes first.
  bool wait_until(const std::function<bool(const Progress&)>& reached,
                  std::chrono::steady_clock::time_point deadline) const;
  Progress progress() const;
  std::vector<JournalEntry> journal() const;  // every entry kept (spilled ones too), by seq
  std::vector<JobRecord> jobs() const;        // in creation order
  // What GET /_test/jobs and a page of GET /_test/journal with every entry list, built whole
  // ({"count","jobs"}, {"count","entries"} and the loss fields): for tests and the demo,
  // which read a small journal in process. The control plane streams them instead.
  nlohmann::json jobs_json() const;
  nlohmann::json journal_json() const;
  std::size_t journal_size() const;        // its entries, without building the JSON
  std::vector<PlanUse> plan_uses() const;  // how each planned source fared so far
  // What the provider holds per key, and what the limits have done since the last reset:
  // jobs of expired keys freed for room, journal entries spilled to the file or dropped.
  struct Retention {
    std::size_t indexed_keys = 0;  // keys that name a job (expired ones are not)
    std::size_t counted_keys = 0;  // keys with a chaos attempt count
    std::uint64_t freed_jobs = 0;
    std::uint64_t spilled_entries = 0;
    std::uint64_t dropped_entries = 0;
    // Keys and fingerprints held once for the jobs and the entries in memory that name
    // them, and the journal's methods, paths and operations: what a reset empties.
    std::size_t held_keys = 0;
    std::size_t held_fingerprints = 0;
    std::size_t journal_texts = 0;
  };
  Retention retention() const;
  const ProviderConfig& config() const { return config_; }
  // The /_test/ endpoints; the server guards them from web pages once it knows its port.
  ControlPlane& control_plane() { return control_; }

  // What the control plane reads and changes (ControlTarget).
  ControlContext control_context() const override;
  void inspect(const std::function<void(const ControlledState&)>& read) const override;
  nlohmann::json fault_plan() const override;
  nlohmann::json install_plan(const nlohmann::json& body, Millis now) override;
  std::uint64_t reset(std::optional<std::uint64_t> seed) override;
  // Moves the provider's clock forward, as POST /_test/clock does; how far it has moved.
  Millis advance_clock(Millis by) override;

 private:
  // A request held by delay-before-commit: the job it will store, and its journal entry.
  struct InFlight {
    StoredJob job;
    std::uint64_t seq;
    Millis commits_at{0};  // when its hold ends, on the core's clock
  };

  // What is read from a data-plane request before the lock is taken: its route, and a
  // create's streamed fingerprint (or why its body is refused). Only the request and the
  // configuration, which never changes, are read: the I/O threads do this work side by
  // side, where under the lock they would take turns.
  struct Prepared {
    RouteMatch match;
    std::optional<std::string> fingerprint;   // when the shape streams it
    std::optional<std::string> body_problem;  // decode_body()'s words for a refused body
  };
  Prepared prepare(const HttpRequest& request) const;
  // Whether a create's fingerprint is read from its text, no DOM needed before the store.
  bool streams_fingerprint(const HttpRequest& request) const;
  Decision route(const HttpRequest& request, Prepared& prepared, JournalEntry& entry, Millis now);
  Decision create_job(const HttpRequest& request, Prepared& prepared, JournalEntry& entry,
                      Millis now);
  // A create's body as JSON, decoded on first use: a replay needs only the fingerprint,
  // which is read from the text as it is parsed (ApiShape::fingerprints_while_parsing).
  class Payload {
   public:
    Payload(const ApiShape& shape, const HttpRequest& request) : shape_(shape), request_(request) {}
    const nlohmann::json& get() const {
      if (!decoded_) decoded_ = shape_.decode_body(request_);
      return *decoded_;
    }

   private:
    const ApiShape& shape_;
    const HttpRequest& request_;
    mutable std::optional<nlohmann::json> decoded_;
  };
  // Why a create is refused before the store is read (400, 413), or nothing: reads its key
  // (in an API without keys, its operation's value) into `key`, and into the entry.
  std::optional<Decision> read_create(const HttpRequest& request, Prepared& prepared,
                                      const Payload& payload, JournalEntry& entry,
                                      std::string& key) const;
  std::optional<Decision> read_body(const HttpRequest& request, const Prepared& prepared,
                                    const Payload& payload, const JournalEntry& entry) const;
  Decision missing_key(JournalEntry& entry) const;
  Decision invalid_key(const std::string& problem) const;
  // Asks the idempotency front end (outages, in flight, replays, capacity), then executes a
  // new operation: its fault drawn, its job stored (or held, in a slowdown).
  Decision store_create(const std::string& key, const Payload& payload, const HttpRequest& request,
                        JournalEntry& entry, Millis now);
  Decision execute_create(const CreateAttempt& create, const Payload& payload, JournalEntry& entry,
                          Millis now, const CreateAdmission& admission);
  Decision apply_fault(const Fault& fault, StoredJob job, JournalEntry& entry);
  Decision lookup_job(const std::string& key, const Lookup& route, JournalEntry& entry, Millis now);
  // What the store holds for a lookup, with no fault, when it is served at `served_at` (later
  // than `now` when it waited in the queue or a slowdown): a job held in flight that commits
  // by then included.
  Decision find_job(const std::string& key, const Lookup& route, JournalEntry& entry, Millis now,
                    Millis served_at);
  const StoredJob* committed_by(const std::string& key, Millis served_at) const;
  // A lookup by the business field (an API without keys) or a list lookup: every held job
  // the value names; the first, or all in {"<list_field>": [...]}.
  Decision search(const std::string& value, const std::optional<std::string>& list_field,
                  JournalEntry& entry);
  void record_looked_up(JournalEntry& entry, const std::string& value) const;

  Decision error(int status, std::string_view code, std::string_view detail = {}) const;
  void log(const std::string& line) const;

  const ProviderConfig config_;
  const ProfileRules& rules_;
  const ErrorFormat errors_;  // the shape's, else the profile's
  mutable std::mutex mutex_;
  mutable std::condition_variable progressed_;  // a request journaled, a job stored
  std::uint64_t seed_;
  Millis clock_offset_{0};  // added by /_test/clock
  // Keys and fingerprints, held once for the store and the journal.
  std::shared_ptr<KeyTables> tables_ = std::make_shared<KeyTables>();
  IdempotencyStore store_;
  FaultPlan plan_;
  JobIdGenerator job_ids_;
  JournalStore journal_;
  std::uint64_t resets_ = 0;  // a streamed read stops at a reset rather than mix two journals
  std::map<std::uint64_t, InFlight> in_flight_;  // by hold, its Decision::pending_commit
  // Never restarts, not even on reset: a hold from before a reset must not match one after.
  std::uint64_t next_hold_ = 1;
  // For chaos, the n-th create and lookup of a key, counted only while the plan draws chaos
  // for them: without, a key (a missed lookup's above all) costs no memory here. With
  // --max-keys, each keeps the counts of that many keys at most.
  std::uint64_t nth_attempt(AttemptCounts& counts, const std::string& key, bool for_lookup);
  AttemptCounts creates_by_key_;
  AttemptCounts lookups_by_key_;
  IdempotencyFrontEnd front_;  // over store_ and plan_, so after them
  ControlPlane control_;
};

}  // namespace retryproof::provider
