// Jobs, and the idempotency keys that name them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "provider/http_types.hpp"

namespace retryproof::provider {

struct StoredJob {
  std::string key;
  std::string fingerprint;  // of the payload that created the job
  nlohmann::json job;       // {"id": ..., "orderId": ...}, exactly as sent to clients
  Millis created_at{0};
  // The first response to the key, replayed as it was under the stripe profile.
  int first_status = 201;
  std::string first_body;

  const std::string& id() const;
};

// Every job ever created, in creation order (the side effects), and an index from
// idempotency key to job. A key older than the TTL leaves the index, as at providers
// that prune keys; its job stays. Not thread-safe: ProviderCore serialises access.
class IdempotencyStore {
 public:
  explicit IdempotencyStore(std::optional<Millis> key_ttl = std::nullopt) : key_ttl_(key_ttl) {}

  // The job this key names at `now`, or null when the key is unknown or expired.
  const StoredJob* find(const std::string& key, Millis now);

  // Records a new job. A key already indexed keeps naming its first job (a provider that
  // does not enforce keys creates more than one per key).
  const StoredJob& insert(StoredJob job);

  const std::vector<StoredJob>& jobs() const { return jobs_; }
  void clear();

 private:
  std::optional<Millis> key_ttl_;
  std::vector<StoredJob> jobs_;
  std::unordered_map<std::string, std::size_t> by_key_;  // index into jobs_
};

}  // namespace retryproof::provider
