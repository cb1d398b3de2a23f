#include "idempotency_store.hpp"

#include <cassert>

namespace retryproof::provider {

const std::string& StoredJob::id() const {
  return job.at("id").get_ref<const std::string&>();
}

const StoredJob* IdempotencyStore::find(const std::string& key) const {
  const auto found = by_key_.find(key);
  return found == by_key_.end() ? nullptr : &jobs_[found->second];
}

const StoredJob& IdempotencyStore::insert(StoredJob job) {
  assert(find(job.key) == nullptr);
  by_key_.emplace(job.key, jobs_.size());
  jobs_.push_back(std::move(job));
  return jobs_.back();
}

void IdempotencyStore::clear() {
  jobs_.clear();
  by_key_.clear();
}

}  // namespace retryproof::provider
