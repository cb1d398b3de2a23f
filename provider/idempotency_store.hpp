// Jobs, and the idempotency keys that name them, in as little memory as a key allows: 32
// bytes a job plus its body. The key and the fingerprint are references into tables shared
// with the journal (a key is held once however many entries and jobs name it), and the key
// table is also the index (key -> job); the id is its 32-bit value, rendered on output; the
// body is the compact JSON clients were sent, in one allocation; the first response and an
// id of another form (a proxy's upstream's) sit in a side table, only for the jobs that
// have them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "provider/compact_bytes.hpp"
#include "provider/digest.hpp"
#include "provider/http_types.hpp"
#include "provider/intern_table.hpp"

namespace retryproof::provider {

// A job as the store's callers give and get it.
struct StoredJob {
  std::string key;
  Digest fingerprint;  // of the payload that created the job
  std::string id;      // "job_1a2b3c4d"
  std::string body;    // the job as compact JSON, exactly as sent to clients
  Millis created_at{0};
  // The first response to the key, replayed as it was under the stripe profile: its body
  // is kept only when it is not `body` (an error the provider answered after committing).
  int first_status = 201;
  std::string first_body;

  const std::string& first_response() const { return first_body.empty() ? body : first_body; }
  friend bool operator==(const StoredJob&, const StoredJob&) = default;
};

// What a replay or a lookup reads of a held job, without copying its texts: views into the
// store, valid until the store next changes (its owner reads them under its lock).
struct JobView {
  std::string id;  // rendered: short enough for no allocation
  Digest fingerprint;
  std::string_view body;
  int first_status = 201;
  std::string_view first_body;  // empty unless the first response was not `body`

  std::string_view first_response() const { return first_body.empty() ? body : first_body; }
};

// Every job held, in creation order (the side effects), and an index from idempotency key to
// job. A key older than the TTL is forgotten: it leaves the index and its job's replay state
// is freed, as at providers that prune keys; the job itself stays as evidence until room is
// needed under `max_jobs`, when the oldest expired jobs are freed (counted) before a new one
// is refused. A freed job lets go of its key and fingerprint. Not thread-safe: its owner
// serialises access.
class IdempotencyStore {
 public:
  // `shared` holds keys and fingerprints (the journal's too, to share them; the store's own
  // when empty); ids of the form `id_prefix` and 8 hex digits are held as their value.
  // With `searchable`, every job a key names is indexed, not only its first, for jobs_named().
  explicit IdempotencyStore(std::optional<Millis> key_ttl = std::nullopt,
                            std::optional<std::size_t> max_jobs = std::nullopt,
                            std::shared_ptr<KeyTables> shared = {}, std::string id_prefix = "job_",
                            bool searchable = false);

  // The job this key names at `now`, or nothing when the key is unknown or expired.
  std::optional<StoredJob> find(std::string_view key, Millis now);
  // The same job, viewed: what every replay and lookup reads.
  std::optional<JobView> view(std::string_view key, Millis now);

  // Whether `reserved` more jobs (held requests that will commit) and one new one fit at
  // `now`. At the bound it first frees the jobs of expired keys, oldest first, telling
  // `freeing` each one's key first, so that what the owner keeps per key can go with it.
  bool has_room(std::size_t reserved, Millis now,
                const std::function<void(const std::string& key)>& freeing = {});

  // Records a new job, and gives it back. A key already indexed keeps naming its first job
  // (a provider that does not enforce keys creates more than one per key).
  StoredJob insert(StoredJob job);

  // Every held job whose key is `key`, oldest first, expired ones too: what a search by a
  // business value answers (an API without keys stores a job under its operation's value).
  // Indexed when the store is searchable, else found by reading every job.
  std::vector<StoredJob> jobs_named(std::string_view key) const;

  std::size_t size() const { return jobs_.size(); }         // jobs held
  StoredJob at(std::size_t index) const;                    // the index-th held, oldest first
  std::size_t keys() const { return indexed_; }             // keys that name a job now
  std::uint64_t freed_jobs() const { return freed_jobs_; }  // freed for room, since clear()
  void clear();

 private:
  struct HeldJob {
    CompactBytes body;
    std::int64_t created_ms = 0;
    std::uint32_t key = 0;     // KeyTables::keys
    std::uint32_t digest = 0;  // KeyTables::digests
    std::uint32_t id = 0;      // the id's value, unless the side table has its text
    std::uint16_t first_status = 201;
    bool in_side_table = false;
  };
  struct SideEntry {
    std::optional<std::string> id;  // an id not of the form prefix and 8 hex digits
    std::string first_body;
  };
  static_assert(sizeof(HeldJob) == 32);
  static constexpr std::uint64_t kNoJob = UINT64_MAX;

  // The index in jobs_ of the job this key names at `now`.
  std::optional<std::size_t> index_of(std::string_view key, Millis now);
  void expire(Millis now);  // forgets the keys older than the TTL
  bool expired(const HeldJob& job, Millis now) const {
    return key_ttl_ && now - Millis(job.created_ms) > *key_ttl_;
  }
  void unindex(std::uint32_t key, std::uint64_t number);  // if the key names that job
  void free_front();

  std::optional<Millis> key_ttl_;
  std::optional<std::size_t> max_jobs_;
  std::shared_ptr<KeyTables> shared_;
  std::string id_prefix_;
  std::deque<HeldJob> jobs_;
  std::unordered_map<std::uint64_t, SideEntry> side_;  // by job number (its index since clear())
  // By key reference: the number of the job the key names, or kNoJob. Set only while that
  // job holds the key, so a slot reused for another key never inherits it.
  std::vector<std::uint64_t> job_of_key_;
  std::size_t indexed_ = 0;
  // When searchable, by key reference: the numbers of every job held with that key, oldest
  // first. An entry goes with its key's last job, so a reused reference starts empty.
  bool searchable_ = false;
  std::unordered_map<std::uint32_t, std::vector<std::uint64_t>> jobs_of_key_;
  std::uint64_t first_index_ = 0;    // the number of jobs_.front()
  std::uint64_t expiry_cursor_ = 0;  // jobs before it have expired keys
  std::uint64_t freed_jobs_ = 0;
};

}  // namespace retryproof::provider
