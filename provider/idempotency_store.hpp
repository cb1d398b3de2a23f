// Jobs, and the idempotency keys that name them, in as little memory as a key allows: the
// key is held once (the index refers to the job's copy), the fingerprint as its 32 bytes,
// the job as the compact JSON clients were sent, the first response only when it differs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "provider/digest.hpp"
#include "provider/http_types.hpp"

namespace retryproof::provider {

struct StoredJob {
  std::string key;
  Digest fingerprint;  // of the payload that created the job
  std::string id;      // "job_1a2b3c4d": within the string's own bytes, no allocation
  std::string body;    // the job as compact JSON, exactly as sent to clients
  Millis created_at{0};
  // The first response to the key, replayed as it was under the stripe profile: its body
  // is kept only when it is not `body` (an error the provider answered after committing).
  int first_status = 201;
  std::string first_body;

  const std::string& first_response() const { return first_body.empty() ? body : first_body; }
};

// Every job held, in creation order (the side effects), and an index from idempotency key to
// job. A key older than the TTL is forgotten: it leaves the index and its job's replay state
// is freed, as at providers that prune keys; the job itself stays as evidence until room is
// needed under `max_jobs`, when the oldest expired jobs are freed (counted) before a new one
// is refused. Not thread-safe: its owner serialises access.
class IdempotencyStore {
 public:
  explicit IdempotencyStore(std::optional<Millis> key_ttl = std::nullopt,
                            std::optional<std::size_t> max_jobs = std::nullopt)
      : key_ttl_(key_ttl), max_jobs_(max_jobs) {}

  // The job this key names at `now`, or null when the key is unknown or expired.
  const StoredJob* find(std::string_view key, Millis now);

  // Whether `reserved` more jobs (held requests that will commit) and one new one fit at
  // `now`. At the bound it first frees the jobs of expired keys, oldest first, telling
  // `freeing` each one's key first, so that what the owner keeps per key can go with it.
  bool has_room(std::size_t reserved, Millis now,
                const std::function<void(const std::string& key)>& freeing = {});

  // Records a new job. A key already indexed keeps naming its first job (a provider that
  // does not enforce keys creates more than one per key).
  const StoredJob& insert(StoredJob job);

  const std::deque<StoredJob>& jobs() const { return jobs_; }
  std::size_t keys() const { return by_key_.size(); }       // keys that name a job now
  std::uint64_t freed_jobs() const { return freed_jobs_; }  // freed for room, since clear()
  void clear();

 private:
  void expire(Millis now);  // forgets the keys older than the TTL
  bool expired(const StoredJob& job, Millis now) const {
    return key_ttl_ && now - job.created_at > *key_ttl_;
  }

  std::optional<Millis> key_ttl_;
  std::optional<std::size_t> max_jobs_;
  std::deque<StoredJob> jobs_;       // a deque: a job never moves, so the index may view its key
  std::uint64_t first_index_ = 0;    // the index (since clear()) of jobs_.front()
  std::uint64_t expiry_cursor_ = 0;  // jobs before it have expired keys
  std::uint64_t freed_jobs_ = 0;
  std::unordered_map<std::string_view, std::uint64_t> by_key_;  // views jobs_[i].key
};

}  // namespace retryproof::provider
