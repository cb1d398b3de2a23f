// The misbehaving provider, without sockets: given a request and the time, it decides
// what to answer (or whether to drop the connection), updates the store and the fault
// plan, and journals the request. Thread-safe: one lock serialises every request, so
// the first request for a new key is the only one that creates a job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fault_plan.hpp"
#include "http_types.hpp"
#include "idempotency_store.hpp"
#include "job_ids.hpp"
#include "journal.hpp"

namespace retryproof::provider {

struct ProviderConfig {
  std::uint64_t seed = 0;
  std::size_t max_body_bytes = 1024 * 1024;
  // Receives one line per data-plane request, in the original provider's words
  // ("[provider] key=K NEW fault=F"). Payloads are never logged. May be empty.
  std::function<void(const std::string&)> log;
};

class ProviderCore {
 public:
  explicit ProviderCore(ProviderConfig config);

  // `now` is the provider's clock: time since it started.
  Decision handle(const HttpRequest& request, Millis now);

  std::size_t job_count() const;
  nlohmann::json jobs_json() const;     // the body of GET /_test/jobs
  nlohmann::json journal_json() const;  // the body of GET /_test/journal
  const ProviderConfig& config() const { return config_; }

 private:
  Decision create_job(const HttpRequest& request, JournalEntry& entry, Millis now);
  Decision apply_fault(const Fault& fault, StoredJob job, JournalEntry& entry);
  Decision lookup_job(const std::string& key, JournalEntry& entry);
  Decision control(const HttpRequest& request);
  Decision install_plan(const std::string& body);
  Decision reset(const std::string& body);

  nlohmann::json jobs_json_locked() const;
  nlohmann::json journal_json_locked() const;
  void log(const std::string& line) const;

  const ProviderConfig config_;
  mutable std::mutex mutex_;
  std::uint64_t seed_;
  IdempotencyStore store_;
  FaultPlan plan_;
  JobIdGenerator job_ids_;
  std::vector<JournalEntry> journal_;
};

}  // namespace retryproof::provider
