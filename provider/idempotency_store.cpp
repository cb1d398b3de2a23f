#include "provider/idempotency_store.hpp"

#include <stdexcept>

#include "provider/job_ids.hpp"

namespace retryproof::provider {

IdempotencyStore::IdempotencyStore(std::optional<Millis> key_ttl,
                                   std::optional<std::size_t> max_jobs,
                                   std::shared_ptr<KeyTables> shared, std::string id_prefix,
                                   bool searchable)
    : key_ttl_(key_ttl),
      max_jobs_(max_jobs),
      shared_(shared ? std::move(shared) : std::make_shared<KeyTables>()),
      id_prefix_(std::move(id_prefix)),
      searchable_(searchable) {}

std::optional<std::size_t> IdempotencyStore::index_of(std::string_view key, Millis now) {
  expire(now);
  const std::optional<std::uint32_t> ref = shared_->keys.find(key);
  if (!ref || *ref >= job_of_key_.size() || job_of_key_[*ref] == kNoJob) return std::nullopt;
  const std::uint64_t number = job_of_key_[*ref];
  if (expired(jobs_[number - first_index_], now)) {
    unindex(*ref, number);  // committed out of order, behind a younger job: judged alone
    return std::nullopt;
  }
  return number - first_index_;
}

std::optional<StoredJob> IdempotencyStore::find(std::string_view key, Millis now) {
  const std::optional<std::size_t> index = index_of(key, now);
  if (!index) return std::nullopt;
  return at(*index);
}

std::optional<JobView> IdempotencyStore::view(std::string_view key, Millis now) {
  const std::optional<std::size_t> index = index_of(key, now);
  if (!index) return std::nullopt;
  const HeldJob& held = jobs_[*index];
  JobView job{.fingerprint = shared_->digests.view(held.digest),
              .body = held.body.view(),
              .first_status = held.first_status};
  const SideEntry* side = held.in_side_table ? &side_.at(first_index_ + *index) : nullptr;
  job.id = side && side->id ? *side->id : job_id_text(id_prefix_, held.id);
  if (side) job.first_body = side->first_body;
  return job;
}

bool IdempotencyStore::has_room(std::size_t reserved, Millis now,
                                const std::function<void(const std::string& key)>& freeing) {
  if (!max_jobs_) return true;
  expire(now);
  while (jobs_.size() + reserved >= *max_jobs_ && first_index_ < expiry_cursor_) {
    if (freeing) freeing(std::string(shared_->keys.view(jobs_.front().key)));
    free_front();  // its key left the index when it expired
    ++freed_jobs_;
  }
  return jobs_.size() + reserved < *max_jobs_;
}

StoredJob IdempotencyStore::insert(StoredJob job) {
  if (job.first_status < 0 || job.first_status > UINT16_MAX)
    throw std::invalid_argument("a response status is 3 digits");
  const std::uint64_t number = first_index_ + jobs_.size();
  HeldJob held{.body = CompactBytes(job.body),
               .created_ms = job.created_at.count(),
               .key = shared_->keys.acquire(job.key),
               .digest = shared_->digests.acquire(job.fingerprint),
               .first_status = static_cast<std::uint16_t>(job.first_status)};
  SideEntry side{.first_body = job.first_body};
  if (const auto value = job_id_value(job.id, id_prefix_)) {
    held.id = *value;
  } else {
    side.id = job.id;
  }
  if (side.id || !side.first_body.empty()) {
    held.in_side_table = true;
    side_.emplace(number, std::move(side));
  }
  if (held.key >= job_of_key_.size()) job_of_key_.resize(held.key + 1, kNoJob);
  if (job_of_key_[held.key] == kNoJob) {  // else the key keeps naming its first job
    job_of_key_[held.key] = number;
    ++indexed_;
  }
  if (searchable_) jobs_of_key_[held.key].push_back(number);
  jobs_.push_back(std::move(held));
  return job;
}

std::vector<StoredJob> IdempotencyStore::jobs_named(std::string_view key) const {
  std::vector<StoredJob> found;
  const std::optional<std::uint32_t> ref = shared_->keys.find(key);
  if (!ref) return found;
  if (!searchable_) {
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (jobs_[i].key == *ref) found.push_back(at(i));
    }
    return found;
  }
  const auto named = jobs_of_key_.find(*ref);
  if (named == jobs_of_key_.end()) return found;
  for (const std::uint64_t number : named->second)
    found.push_back(at(static_cast<std::size_t>(number - first_index_)));
  return found;
}

StoredJob IdempotencyStore::at(std::size_t index) const {
  const HeldJob& held = jobs_[index];
  StoredJob job{.key = std::string(shared_->keys.view(held.key)),
                .fingerprint = shared_->digests.view(held.digest),
                .body = std::string(held.body.view()),
                .created_at = Millis(held.created_ms),
                .first_status = held.first_status};
  const SideEntry* side = held.in_side_table ? &side_.at(first_index_ + index) : nullptr;
  job.id = side && side->id ? *side->id : job_id_text(id_prefix_, held.id);
  if (side) job.first_body = side->first_body;
  return job;
}

void IdempotencyStore::unindex(std::uint32_t key, std::uint64_t number) {
  if (job_of_key_[key] != number) return;
  job_of_key_[key] = kNoJob;
  --indexed_;
}

void IdempotencyStore::free_front() {
  const HeldJob& held = jobs_.front();
  unindex(held.key, first_index_);  // expired first, so already done but for clear()
  if (held.in_side_table) side_.erase(first_index_);
  if (searchable_) {
    const auto named = jobs_of_key_.find(held.key);
    named->second.erase(named->second.begin());  // the oldest job of its key is the first
    if (named->second.empty()) jobs_of_key_.erase(named);
  }
  shared_->keys.release(held.key);
  shared_->digests.release(held.digest);
  jobs_.pop_front();
  ++first_index_;
}

void IdempotencyStore::expire(Millis now) {
  // Jobs are stored in commit order, so expired keys are a prefix: a sweep from the oldest
  // stops at the first young one.
  while (expiry_cursor_ < first_index_ + jobs_.size()) {
    HeldJob& job = jobs_[expiry_cursor_ - first_index_];
    if (!expired(job, now)) break;
    unindex(job.key, expiry_cursor_);
    if (job.in_side_table) {  // the first response is never replayed again
      SideEntry& side = side_.at(expiry_cursor_);
      std::string().swap(side.first_body);
      if (!side.id) {
        side_.erase(expiry_cursor_);
        job.in_side_table = false;
      }
    }
    ++expiry_cursor_;
  }
}

void IdempotencyStore::clear() {
  while (!jobs_.empty())
    free_front();
  side_.clear();
  job_of_key_.clear();
  jobs_of_key_.clear();
  indexed_ = 0;
  first_index_ = expiry_cursor_ = freed_jobs_ = 0;
}

}  // namespace retryproof::provider
