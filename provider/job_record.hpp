// A job as the control plane lists it (GET /_test/jobs): the object clients were sent,
// and the idempotency key that created it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace retryproof::provider {

struct JobRecord {
  std::string id;
  std::string key;
  nlohmann::json body;  // the job exactly as sent to clients: {"id": ..., "orderId": ...}

  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

// The body with "key" added: {"id","key","orderId"}.
void to_json(nlohmann::json& json, const JobRecord& job);
// The inverse. Throws std::invalid_argument naming the field that is missing or wrong.
void from_json(const nlohmann::json& json, JobRecord& job);

// Jobs as GET /_test/jobs serves them ({"count", "jobs"}), or a bare array.
std::vector<JobRecord> jobs_from_json(const nlohmann::json& document);

}  // namespace retryproof::provider
