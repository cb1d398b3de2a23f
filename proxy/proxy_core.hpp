// The fault-injecting proxy, without sockets: for each request it decides to answer at
// once (a fault that never commits, a control call, a replay under --enforce-keys), to
// hold it (delay-before-commit) or to forward it; given the upstream's answer it decides
// what the client gets (a commit-then-* fault replaces it) and journals both. The same
// fault plan, chaos and control plane as the provider; the jobs are the upstream's.
// Thread-safe: one lock serialises every decision.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "provider/api_shape.hpp"
#include "provider/fault_plan.hpp"
#include "provider/http_types.hpp"
#include "provider/idempotency_store.hpp"
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

// What to do with a request now.
using Step = std::variant<provider::Decision, Forward>;

class ProxyCore {
 public:
  explicit ProxyCore(ProxyConfig config);

  // `now` is the time since the proxy started; /_test/clock moves it forward. A decision
  // with pending_commit is a hold: at its end, release().
  Step begin(const provider::HttpRequest& request, Millis now);
  // The end of a delay-before-commit hold: the request is forwarded now.
  Step release(std::uint64_t pending_commit, Millis now);
  // The upstream's answer to a forwarded request (or its failure): what the client gets.
  provider::Decision finish(std::uint64_t ticket, const UpstreamAnswer& answer, Millis now);
  // Over HTTPS, the server ended the TLS stream of `seq`'s answer with a close_notify.
  void close_notify_sent(std::uint64_t seq);

  std::vector<ProxyEntry> journal() const;
  nlohmann::json journal_json() const;  // the body of GET /_test/journal
  nlohmann::json jobs_json() const;     // the body of GET /_test/jobs
  const ProxyConfig& config() const { return config_; }
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
  };

  Step route(const provider::HttpRequest& request, ProxyEntry& entry, Millis now);
  Step route_create(const provider::HttpRequest& request, const RequestClass& seen,
                    ProxyEntry& entry, Millis now);
  std::optional<provider::Decision> enforce_key(ProxyEntry& entry, Millis now);
  // The plan's outage, when one takes the request: answered here (the service is down, the
  // upstream is not asked), or for a slowdown held, then forwarded.
  std::optional<Step> outage_step(const provider::HttpRequest& request, const RequestClass& seen,
                                  ProxyEntry& entry, Millis now);
  Step forward(const provider::HttpRequest& request, const ProxyEntry& entry,
               std::optional<provider::Fault> fault);
  // Reads the upstream's answer into the journal entry (outcome, job) and the jobs.
  void read_answer(ProxyEntry& entry, const Pending& pending, const UpstreamAnswer& answer,
                   Millis now);
  provider::Decision control(const provider::HttpRequest& request, Millis now);
  provider::Decision read_journal(std::string_view query) const;
  provider::Decision reset(const std::string& body);
  provider::Decision advance_clock(const std::string& body);
  nlohmann::json journal_json_locked() const;
  nlohmann::json jobs_json_locked() const;
  void log(const std::string& line) const;

  const ProxyConfig config_;
  const provider::ErrorStyle errors_;
  mutable std::mutex mutex_;
  Millis clock_offset_{0};
  provider::FaultPlan plan_;
  std::vector<ProxyEntry> journal_;
  // The jobs the upstream returned through the proxy, by the key that created them.
  provider::IdempotencyStore jobs_;
  std::set<std::string> job_ids_;             // theirs, to tell a new job from a replayed one
  std::map<std::uint64_t, Pending> pending_;  // by ticket
  // Never restarts, not even on reset: an answer from before a reset must not match one after.
  std::uint64_t next_ticket_ = 1;
  std::unordered_map<std::string, std::uint64_t> creates_by_key_;  // for chaos: the n-th create
  std::unordered_map<std::string, std::uint64_t> lookups_by_key_;  // and the n-th lookup
};

}  // namespace retryproof::proxy
