// The fault-injecting proxy, without sockets: for each request it decides to answer at
// once (a fault that never commits, a control call, a replay under --enforce-keys), to
// hold it (delay-before-commit) or to forward it; given the upstream's answer it decides
// what the client gets (a commit-then-* fault replaces it) and journals both. The same
// fault plan, chaos and control plane as the provider; the jobs are the upstream's.
// Thread-safe: one lock serialises every decision. Its memory is bounded as the provider's
// is, by the same limits (--max-keys, --journal-limit, --journal-file; docs/proxy.md, Memory).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "provider/api_shape.hpp"
#include "provider/attempt_counts.hpp"
#include "provider/control_plane.hpp"
#include "provider/fault_plan.hpp"
#include "provider/http_types.hpp"
#include "provider/idempotency_front_end.hpp"
#include "provider/idempotency_store.hpp"
#include "provider/intern_table.hpp"
#include "provider/journal_store.hpp"
#include "provider/provider_core.hpp"
#include "provider/responses.hpp"
#include "proxy/proxy_journal.hpp"
#include "proxy/request_class.hpp"
#include "proxy/upstream_answer.hpp"

namespace retryproof::proxy {

struct ProxyConfig {
  // Which requests are creates and lookups, where their keys are, how bodies are read.
  provider::ApiShape api = provider::jobs_shape();
  // The proxy answers repeated keys itself (a replay, a 422, a 409 while in flight), for
  // an upstream that does not enforce them. Off: the upstream's idempotency is the
  // upstream's, and a create whose key the upstream committed is forwarded, without a fault.
  bool enforce_keys = false;
  std::optional<Millis> key_ttl;  // with enforce_keys: keys older than this are forgotten
  // The provider's memory bounds, meaning what they mean there: at most this many jobs
  // (the upstream's, each with its key; creates at the upstream count), a new operation past
  // it refused 507 capacity_exhausted by the proxy once expired keys are freed; and as many
  // keys' chaos attempt counts. Unbounded when empty.
  std::optional<std::size_t> max_keys;
  provider::JournalLimits journal;  // entries in memory, and where older ones go
  // Seeds a brownout's draw (an outage below rate 1), as the provider's --seed does, so that
  // a rehearsal replays; POST /_test/reset {"seed": N} changes it.
  std::uint64_t seed = 0;
  std::optional<std::string> control_token;
  provider::FaultPlan initial_plan;
  // The payload field whose value each create's journal entry records as its `operation`
  // (--operation-field orderId), as the provider's does: traffic judged by business operation.
  std::optional<std::string> operation_field;
  std::vector<provider::ControlEndpoint> control_endpoints;  // beside the proxy's own /_test/
  std::function<void(const std::string&)> log;  // one line per request; never a payload
};

// Send `request` to the upstream, and give its answer to ProxyCore::finish(ticket, ...).
struct Forward {
  std::uint64_t ticket = 0;
  provider::HttpRequest request;
};

// What to do with a request now: answer it here, or forward it upstream.
using Disposition = std::variant<provider::Decision, Forward>;

class ProxyCore final : public provider::ControlTarget {
 public:
  explicit ProxyCore(ProxyConfig config);
  ProxyCore(const ProxyCore&) = delete;
  ProxyCore& operator=(const ProxyCore&) = delete;

  // `now` is the time since the proxy started; /_test/clock moves it forward. A decision
  // with pending_commit is a hold: at its end, release().
  Disposition begin(const provider::HttpRequest& request, Millis now);
  // The end of a delay-before-commit hold: the request is forwarded now.
  Disposition release(std::uint64_t pending_commit, Millis now);
  // The upstream's answer to a forwarded request (or its failure): what the client gets.
  provider::Decision finish(std::uint64_t ticket, const UpstreamAnswer& answer, Millis now);
  // Over HTTPS, the server ended the TLS stream of `seq`'s answer with a close_notify.
  void close_notify_sent(std::uint64_t seq);
  // Journals a request the proxy's server refused before the core saw it (the connection
  // cap's 503, a deadline's 408, a limit's 413 or 431), as the provider does: load too.
  void record_refused(const provider::RefusedRequest& request, Millis now);

  // The provider's fields of every entry kept (spilled ones too), by seq.
  std::vector<provider::JournalEntry> journal() const;
  // GET /_test/journal's and /_test/jobs' listings built whole, for tests (the control plane
  // streams them).
  nlohmann::json journal_json() const;
  nlohmann::json jobs_json() const;
  const ProxyConfig& config() const { return config_; }
  // The /_test/ endpoints; the server guards them from web pages once it knows its port.
  provider::ControlPlane& control_plane() { return control_; }

  // What the control plane reads and changes (provider::ControlTarget), as at the provider.
  provider::ControlContext control_context() const override;
  void inspect(const std::function<void(const provider::ControlledState&)>& read) const override;
  nlohmann::json fault_plan() const override;
  nlohmann::json install_plan(const nlohmann::json& body, Millis now) override;
  std::uint64_t reset(std::optional<std::uint64_t> seed) override;
  Millis advance_clock(Millis by) override;
  // What the proxy holds, for the tests of its bounds.
  struct Retention {
    std::size_t held_jobs = 0;
    std::uint64_t freed_jobs = 0;     // of expired keys, for room under max_keys
    std::size_t known_job_ids = 0;    // to tell a new job from a replayed one
    std::size_t counted_creates = 0;  // keys with a chaos attempt count
    std::size_t counted_lookups = 0;
    std::size_t journal_in_memory = 0;
    std::uint64_t spilled_entries = 0;
    std::uint64_t dropped_entries = 0;
  };
  Retention retention() const;
  // The proxy's own error answers (its faults', its upstream failures', its control plane's,
  // its server's) in the API shape's error format and restated codes, as the provider's.
  provider::Decision error(int status, std::string_view code, std::string_view detail = {}) const;

 private:
  // A request forwarded (or held before it is): what its answer is judged by.
  struct Pending {
    std::uint64_t seq = 0;  // its journal entry
    std::string key;        // a create's key, or empty
    std::optional<provider::Fault> fault;
    std::optional<provider::HttpRequest> held;  // a delay-before-commit request, until release
    bool reserved = false;  // a new operation given a place under max_keys for its job
  };

  Disposition route(const provider::HttpRequest& request, const RequestClass& seen,
                    provider::JournalEntry& entry, Millis now);
  // Through the idempotency front end (outages, in flight, replays, capacity), as at the
  // provider; a new operation takes its fault here.
  Disposition route_create(const provider::HttpRequest& request, const RequestClass& seen,
                           provider::JournalEntry& entry, Millis now);
  Disposition new_operation(const provider::HttpRequest& request,
                            const provider::CreateAttempt& create, const nlohmann::json& payload,
                            provider::JournalEntry& entry, std::optional<Millis> slowdown);
  // An outage first (answered here, or a slowdown held then forwarded), then lookup-unavailable.
  Disposition route_lookup(const provider::HttpRequest& request, const RequestClass& seen,
                           provider::JournalEntry& entry, Millis now);
  std::uint64_t nth_attempt(provider::AttemptCounts& counts, const std::string& key,
                            bool for_lookup);
  // Sent to the upstream now, or after a hold: a request on its way, its create's `key` in
  // flight and, for a new operation, its job's place reserved under max_keys.
  Disposition forward(const provider::HttpRequest& request, const provider::JournalEntry& entry,
                      std::optional<provider::Fault> fault, const std::string& key = {},
                      bool reserved = false);
  provider::Decision hold(const provider::HttpRequest& request, const provider::JournalEntry& entry,
                          std::optional<provider::Fault> fault, Millis duration,
                          const std::string& key, bool reserved);
  // What the client of a forwarded request gets, written into its journal entry.
  provider::Decision settle(provider::JournalEntry& entry, const Pending& pending,
                            const UpstreamAnswer& answer, Millis now);
  // Reads the upstream's answer into the journal entry (outcome, job) and the jobs; its
  // outcome by `status`, the one the provider sends the answer's code with.
  void read_answer(provider::JournalEntry& entry, const Pending& pending,
                   const UpstreamAnswer& answer, Millis now, int status);
  void append(const provider::JournalEntry& entry);
  UpstreamFields& upstream_of(std::uint64_t seq);  // of an entry in memory
  void log(const std::string& line) const;

  const ProxyConfig config_;
  const provider::ErrorStyle errors_;
  mutable std::mutex mutex_;
  Millis clock_offset_{0};
  std::uint64_t seed_;
  provider::FaultPlan plan_;
  // Keys and fingerprints, held once for the jobs and the journal, as at the provider.
  std::shared_ptr<provider::KeyTables> tables_ = std::make_shared<provider::KeyTables>();
  // The provider's journal store, bounded as the provider's; beside each entry in memory,
  // what the upstream did (written into its JSON, the spill file's too).
  provider::JournalStore journal_;
  std::deque<UpstreamFields> upstream_;  // of journal_'s entries in memory, by seq
  // The jobs the upstream returned through the proxy, by the key that created them.
  provider::IdempotencyStore jobs_;
  // Their ids, to tell a new job from a replayed one, bounded as the jobs are.
  provider::BoundedKeySet job_ids_;
  std::map<std::uint64_t, Pending> pending_;  // by ticket
  std::uint64_t resets_ = 0;                  // a listing stops at a reset
  // Never restarts, not even on reset: an answer from before a reset must not match one after.
  std::uint64_t next_ticket_ = 1;
  // For chaos, the n-th create and lookup of a key, counted only while the plan draws chaos
  // for them; with max_keys, of that many keys at most, the oldest forgotten (its next
  // attempt then draws as a first one), as at the provider.
  provider::AttemptCounts creates_by_key_;
  provider::AttemptCounts lookups_by_key_;
  provider::IdempotencyFrontEnd front_;  // over jobs_ and plan_, so after them
  provider::ControlPlane control_;
};

}  // namespace retryproof::proxy
