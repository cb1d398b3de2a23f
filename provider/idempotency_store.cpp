#include "provider/idempotency_store.hpp"

#include <cassert>

namespace retryproof::provider {

const std::string& StoredJob::id() const {
  return job.at("id").get_ref<const std::string&>();
}

const StoredJob* IdempotencyStore::find(const std::string& key, Millis now) {
  const auto found = by_key_.find(key);
  if (found == by_key_.end()) return nullptr;
  const StoredJob& stored = jobs_[found->second];
  if (key_ttl_ && now - stored.created_at > *key_ttl_) {  // older than the TTL
    by_key_.erase(found);
    return nullptr;
  }
  return &stored;
}

const StoredJob& IdempotencyStore::insert(StoredJob job) {
  by_key_.emplace(job.key, jobs_.size());  // no-op when the key names a job already
  jobs_.push_back(std::move(job));
  return jobs_.back();
}

void IdempotencyStore::clear() {
  jobs_.clear();
  by_key_.clear();
}

}  // namespace retryproof::provider
