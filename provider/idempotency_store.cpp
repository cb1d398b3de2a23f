#include "provider/idempotency_store.hpp"

namespace retryproof::provider {

const StoredJob* IdempotencyStore::find(std::string_view key, Millis now) {
  expire(now);
  const auto found = by_key_.find(key);
  if (found == by_key_.end()) return nullptr;
  const StoredJob& stored = jobs_[found->second - first_index_];
  if (expired(stored, now)) {  // committed out of order, behind a younger job: judged alone
    by_key_.erase(found);
    return nullptr;
  }
  return &stored;
}

bool IdempotencyStore::has_room(std::size_t reserved, Millis now,
                                const std::function<void(const std::string& key)>& freeing) {
  if (!max_jobs_) return true;
  expire(now);
  while (jobs_.size() + reserved >= *max_jobs_ && first_index_ < expiry_cursor_) {
    if (freeing) freeing(jobs_.front().key);
    jobs_.pop_front();  // its key left the index when it expired
    ++first_index_;
    ++freed_jobs_;
  }
  return jobs_.size() + reserved < *max_jobs_;
}

const StoredJob& IdempotencyStore::insert(StoredJob job) {
  jobs_.push_back(std::move(job));
  const StoredJob& stored = jobs_.back();
  by_key_.emplace(stored.key, first_index_ + jobs_.size() - 1);  // no-op for a key indexed
  return stored;
}

void IdempotencyStore::expire(Millis now) {
  // Jobs are stored in commit order, so expired keys are a prefix: a sweep from the oldest
  // stops at the first young one.
  while (expiry_cursor_ < first_index_ + jobs_.size()) {
    StoredJob& job = jobs_[expiry_cursor_ - first_index_];
    if (!expired(job, now)) break;
    const auto indexed = by_key_.find(job.key);
    if (indexed != by_key_.end() && indexed->second == expiry_cursor_) by_key_.erase(indexed);
    std::string().swap(job.first_body);  // never replayed again
    ++expiry_cursor_;
  }
}

void IdempotencyStore::clear() {
  jobs_.clear();
  by_key_.clear();
  first_index_ = expiry_cursor_ = freed_jobs_ = 0;
}

}  // namespace retryproof::provider
