#include "provider_core.hpp"

#include <algorithm>
#include <string_view>

#include "fingerprint.hpp"
#include "json_body.hpp"
#include "responses.hpp"

namespace retryproof::provider {
namespace {

constexpr std::string_view kJobsPath = "/jobs";
constexpr std::string_view kLookupPrefix = "/jobs/by-idempotency-key/";
constexpr std::string_view kControlPrefix = "/_test/";
constexpr std::size_t kMaxKeyBytes = 255;

bool is_get(const std::string& method) {
  return method == "GET" || method == "HEAD";
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

}  // namespace

ProviderCore::ProviderCore(ProviderConfig config)
    : config_(std::move(config)), seed_(config_.seed), job_ids_(config_.seed) {}

Decision ProviderCore::handle(const HttpRequest& request, Millis now) {
  std::lock_guard lock(mutex_);
  if (request.path.starts_with(kControlPrefix)) return control(request);

  JournalEntry entry;
  entry.seq = journal_.size() + 1;
  entry.at = now;
  entry.method = request.method;
  entry.path = request.path;

  Decision decision;
  if (request.path == kJobsPath) {
    decision =
        request.method == "POST" ? create_job(request, entry, now) : method_not_allowed("POST");
  } else if (request.path.starts_with(kLookupPrefix) &&
             request.path.size() > kLookupPrefix.size()) {
    decision = is_get(request.method) ? lookup_job(request.path.substr(kLookupPrefix.size()), entry)
                                      : method_not_allowed("GET");
  } else {
    decision = error_response(404, "not_found");
  }

  entry.delivered = decision.delivery == Delivery::respond;
  if (entry.delivered) entry.status = decision.status;
  journal_.push_back(std::move(entry));
  return decision;
}

Decision ProviderCore::create_job(const HttpRequest& request, JournalEntry& entry, Millis now) {
  const auto header = request.headers.find("Idempotency-Key");
  if (header == request.headers.end() || header->second.empty()) {
    entry.outcome = Outcome::missing_key;
    log("[provider] REJECTED (missing Idempotency-Key)");
    return error_response(400, "idempotency_key_required",
                          "send an Idempotency-Key header naming the logical operation");
  }
  const std::string& key = header->second;
  if (key.size() > kMaxKeyBytes || has_control_character(key)) {
    log("[provider] REJECTED (invalid Idempotency-Key)");
    return error_response(400, "idempotency_key_invalid",
                          "an Idempotency-Key has 1 to 255 bytes and no control characters");
  }
  entry.key = key;

  if (request.body.size() > config_.max_body_bytes) {
    log("[provider] key=" + key + " REJECTED (payload too large)");
    return error_response(413, "payload_too_large",
                          "the body has " + std::to_string(request.body.size()) +
                              " bytes; the limit is " + std::to_string(config_.max_body_bytes));
  }
  nlohmann::json payload;
  try {
    payload = parse_object_body(request.body);
  } catch (const std::invalid_argument& error) {
    log("[provider] key=" + key + " REJECTED (invalid JSON)");
    return error_response(400, "invalid_json", error.what());
  }
  entry.fingerprint = fingerprint(payload);

  if (const StoredJob* stored = store_.find(key)) {
    entry.job_id = stored->id();
    if (stored->fingerprint != *entry.fingerprint) {
      entry.outcome = Outcome::rejected;
      log("[provider] key=" + key + " REJECTED (payload changed)");
      return error_response(422, "idempotency_key_reused_with_different_payload",
                            "this key created " + stored->id() +
                                " with a different payload; a changed request needs a new key");
    }
    entry.outcome = Outcome::replay;
    log("[provider] key=" + key + " REPLAY job=" + stored->id());
    Decision replay = json_response(200, stored->job);
    replay.headers.emplace("Idempotent-Replayed", "true");
    return replay;
  }

  entry.outcome = Outcome::new_operation;
  const Fault fault = plan_.take();
  entry.fault = to_string(fault);
  log("[provider] key=" + key + " NEW fault=" + *entry.fault);

  nlohmann::json job = {{"id", job_ids_.next()}};
  if (payload.contains("orderId")) job["orderId"] = payload["orderId"];
  return apply_fault(fault, StoredJob{key, *entry.fingerprint, std::move(job), now}, entry);
}

Decision ProviderCore::apply_fault(const Fault& fault, StoredJob job, JournalEntry& entry) {
  if (fault.kind == FaultKind::fail_before_commit) {
    return error_response(503, "temporarily_unavailable");
  }
  const StoredJob& stored = store_.insert(std::move(job));
  entry.job_id = stored.id();
  switch (fault.kind) {
    case FaultKind::commit_then_error:
      return error_response(503, "temporarily_unavailable");
    case FaultKind::commit_then_drop: {
      Decision drop;
      drop.delivery = Delivery::drop;
      return drop;
    }
    case FaultKind::none:
    case FaultKind::fail_before_commit:
      break;
  }
  return json_response(201, stored.job);
}

Decision ProviderCore::lookup_job(const std::string& key, JournalEntry& entry) {
  entry.key = key;
  const StoredJob* stored = store_.find(key);
  if (stored == nullptr) {
    entry.outcome = Outcome::lookup_miss;
    log("[provider] key=" + key + " LOOKUP miss");
    return error_response(404, "not_found");  // exactly the original's body
  }
  entry.outcome = Outcome::lookup_hit;
  entry.job_id = stored->id();
  log("[provider] key=" + key + " LOOKUP job=" + stored->id());
  return json_response(200, stored->job);
}

std::size_t ProviderCore::job_count() const {
  std::lock_guard lock(mutex_);
  return store_.jobs().size();
}

nlohmann::json ProviderCore::jobs_json() const {
  std::lock_guard lock(mutex_);
  return jobs_json_locked();
}

nlohmann::json ProviderCore::journal_json() const {
  std::lock_guard lock(mutex_);
  return journal_json_locked();
}

nlohmann::json ProviderCore::journal_json_locked() const {
  auto entries = nlohmann::json::array();
  for (const auto& entry : journal_)
    entries.push_back(to_json(entry));
  return {{"count", journal_.size()}, {"entries", entries}};
}

nlohmann::json ProviderCore::jobs_json_locked() const {
  auto jobs = nlohmann::json::array();
  for (const auto& stored : store_.jobs()) {
    nlohmann::json listed = stored.job;
    listed["key"] = stored.key;
    jobs.push_back(std::move(listed));
  }
  return {{"count", store_.jobs().size()}, {"jobs", jobs}};
}

void ProviderCore::log(const std::string& line) const {
  if (config_.log) config_.log(line);
}

}  // namespace retryproof::provider
