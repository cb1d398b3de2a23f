#include "provider/job_record.hpp"

#include <stdexcept>

#include "common/json_text.hpp"

namespace retryproof::provider {

void to_json(nlohmann::json& json, const JobRecord& job) {
  json = job.body;
  // A job in an envelope ({"payment": {...}}) or with another id field is still listed by id.
  if (json.is_object() && !json.contains("id")) json["id"] = job.id;
  put_client_text(json, "key", job.key);
}

void from_json(const nlohmann::json& json, JobRecord& job) {
  if (!json.is_object()) throw std::invalid_argument("expected a job object");
  for (const char* name : {"id", "key"}) {
    if (!json.contains(name) || !json[name].is_string()) {
      throw std::invalid_argument("\"" + std::string(name) + "\": expected a string");
    }
  }
  job.id = json["id"].get<std::string>();
  job.key = *client_text(json, "key");
  job.body = json;
  job.body.erase("key");
  job.body.erase("keyEscaped");
}

std::vector<JobRecord> jobs_from_json(const nlohmann::json& document) {
  const nlohmann::json* jobs = &document;
  if (document.is_object()) {
    if (!document.contains("jobs")) {
      throw std::invalid_argument("expected {\"count\": N, \"jobs\": [...]} or an array of jobs");
    }
    jobs = &document["jobs"];
  }
  if (!jobs->is_array()) throw std::invalid_argument("\"jobs\": expected an array");
  std::vector<JobRecord> records;
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    try {
      records.push_back((*jobs)[i].get<JobRecord>());
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument("jobs[" + std::to_string(i) + "]: " + error.what());
    }
  }
  return records;
}

}  // namespace retryproof::provider
