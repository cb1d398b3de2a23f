#include "provider/provider_core.hpp"

#include <algorithm>
#include <string_view>

#include "common/fingerprint.hpp"
#include "common/json_text.hpp"
#include "common/utf8.hpp"
#include "provider/json_body.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {
namespace {

constexpr std::string_view kJobsPath = "/jobs";
constexpr std::string_view kLookupPrefix = "/jobs/by-idempotency-key/";
constexpr std::string_view kControlPrefix = "/_test/";
constexpr std::size_t kMaxKeyLength = 255;

bool is_get(const std::string& method) {
  return method == "GET" || method == "HEAD";
}

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

// A structured-field string ("abc", with \" and \\ escapes), as the IETF draft sends
// keys. Returns false when the quoting is malformed.
bool unquote_structured_string(std::string& text) {
  std::string plain;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == '\\') {
      if (++i + 1 >= text.size() || (text[i] != '"' && text[i] != '\\')) return false;
    } else if (text[i] == '"') {
      return false;
    }
    plain.push_back(text[i]);
  }
  text = std::move(plain);
  return true;
}

struct KeyReading {
  std::string key;      // empty when the header is missing or empty
  std::string problem;  // why the key is refused, or empty
};

KeyReading read_key(const Headers& headers, Profile profile) {
  const auto [first, last] = headers.equal_range("Idempotency-Key");
  if (first == last || first->second.empty()) return {};
  KeyReading reading{first->second, {}};
  if (profile == Profile::ietf) {
    if (std::next(first) != last) {
      reading.problem = "send exactly one Idempotency-Key header";
      return reading;
    }
    const std::string& raw = first->second;
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"' &&
        !unquote_structured_string(reading.key)) {
      reading.problem = "the quoted Idempotency-Key is not a valid structured-field string";
      return reading;
    }
  }
  const std::size_t length = profile == Profile::stripe
                                 ? utf8_length(reading.key).value_or(reading.key.size())
                                 : reading.key.size();
  if (reading.key.empty() || length > kMaxKeyLength || has_control_character(reading.key)) {
    reading.problem = profile == Profile::stripe
                          ? "an Idempotency-Key has 1 to 255 characters and no control characters"
                          : "an Idempotency-Key has 1 to 255 bytes and no control characters";
  }
  return reading;
}

}  // namespace

ProviderCore::ProviderCore(ProviderConfig config)
    : config_(std::move(config)),
      seed_(config_.seed),
      store_(config_.key_ttl),
      plan_(config_.initial_plan),
      job_ids_(config_.seed) {}

Decision ProviderCore::handle(const HttpRequest& request, Millis now) {
  std::lock_guard lock(mutex_);
  if (request.path.starts_with(kControlPrefix)) return control(request);
  now += clock_offset_;

  JournalEntry entry;
  entry.seq = journal_.size() + 1;
  entry.at = now;
  entry.method = request.method;
  entry.path = request.path;

  Decision decision;
  if (request.path == kJobsPath) {
    decision = request.method == "POST" ? create_job(request, entry, now)
                                        : method_not_allowed("POST", config_.profile);
  } else if (request.path.starts_with(kLookupPrefix) &&
             request.path.size() > kLookupPrefix.size()) {
    decision = is_get(request.method)
                   ? lookup_job(request.path.substr(kLookupPrefix.size()), entry, now)
                   : method_not_allowed("GET", config_.profile);
  } else {
    decision = error(404, "not_found");
  }

  // A held request is journaled now, in arrival order, and completed by complete().
  entry.delivered = decision.delivery == Delivery::respond && !decision.pending_commit;
  if (decision.delivery != Delivery::drop && decision.delivery != Delivery::reset &&
      !decision.pending_commit) {
    entry.status = decision.status;
  }
  journal_.push_back(std::move(entry));
  return decision;
}

Decision ProviderCore::create_job(const HttpRequest& request, JournalEntry& entry, Millis now) {
  const KeyReading reading = read_key(request.headers, config_.profile);
  if (reading.key.empty() && reading.problem.empty()) {
    entry.outcome = Outcome::missing_key;
    log("[provider] REJECTED (missing Idempotency-Key)");
    return error(400, "idempotency_key_required",
                 "send an Idempotency-Key header naming the logical operation");
  }
  if (!reading.problem.empty()) {
    log("[provider] REJECTED (invalid Idempotency-Key)");
    return error(400, "idempotency_key_invalid", reading.problem);
  }
  const std::string& key = reading.key;
  entry.key = key;

  if (request.body.size() > config_.max_body_bytes) {
    log("[provider] key=" + key + " REJECTED (payload too large)");
    return error(413, "payload_too_large",
                 "the body has " + std::to_string(request.body.size()) + " bytes; the limit is " +
                     std::to_string(config_.max_body_bytes));
  }
  nlohmann::json payload;
  try {
    payload = parse_object_body(request.body);
  } catch (const std::invalid_argument& problem) {
    log("[provider] key=" + key + " REJECTED (invalid JSON)");
    return error(400, "invalid_json", problem.what());
  }
  entry.fingerprint = fingerprint(payload);

  if (in_flight_.contains(key)) {
    entry.outcome = Outcome::conflict;
    log("[provider] key=" + key + " CONFLICT (in flight)");
    return error(409, "idempotency_key_in_flight",
                 "the first request with this key is still being processed; retry later");
  }
  if (const StoredJob* stored = store_.find(key, now)) {
    entry.job_id = stored->id();
    if (stored->fingerprint != *entry.fingerprint) {
      entry.outcome = Outcome::rejected;
      log("[provider] key=" + key + " REJECTED (payload changed)");
      return error(422, "idempotency_key_reused_with_different_payload",
                   "this key created " + stored->id() +
                       " with a different payload; a changed request needs a new key");
    }
    entry.outcome = Outcome::replay;
    log("[provider] key=" + key + " REPLAY job=" + stored->id());
    return replay(*stored);
  }

  entry.outcome = Outcome::new_operation;
  const Fault fault = plan_.take_for_create(key, payload, creates_by_key_[key]++);
  entry.fault = to_string(fault);
  log("[provider] key=" + key + " NEW fault=" + *entry.fault);

  nlohmann::json job = {{"id", job_ids_.next()}};
  if (payload.contains("orderId")) job["orderId"] = payload["orderId"];
  return apply_fault(fault, StoredJob{key, *entry.fingerprint, std::move(job), now}, entry);
}

Decision ProviderCore::apply_fault(const Fault& fault, StoredJob job, JournalEntry& entry) {
  // Faults that store nothing.
  switch (fault.kind) {
    case FaultKind::fail_before_commit:
      return error(503, "temporarily_unavailable");
    case FaultKind::drop_before_commit:
      return Decision{.delivery = Delivery::drop};
    case FaultKind::rate_limited: {
      Decision limited =
          error(429, "rate_limited", "slow down and retry after the Retry-After delay");
      limited.headers.emplace("Retry-After", std::to_string(fault.retry_after_seconds));
      return limited;
    }
    case FaultKind::delay_before_commit: {
      entry.job_id = job.id();
      const std::string key = job.key;
      const std::uint64_t hold = next_hold_++;
      in_flight_.emplace(key, InFlight{std::move(job), entry.seq, hold});
      return Decision{.delay = fault.duration, .pending_commit = hold};
    }
    default:
      break;
  }

  // The job is committed; what follows decides only what the client sees.
  Decision created = json_response(201, job.job);
  Decision answer = created;
  switch (fault.kind) {
    case FaultKind::commit_then_error:
      answer = error(503, "temporarily_unavailable");
      break;
    case FaultKind::commit_then_500:
      answer = error(500, "internal_error");
      break;
    case FaultKind::commit_then_drop:
      answer.delivery = Delivery::drop;
      break;
    case FaultKind::commit_then_reset:
      answer.delivery = Delivery::reset;
      break;
    case FaultKind::commit_then_truncate:
      answer.delivery = Delivery::truncate;
      break;
    case FaultKind::commit_then_delay:
      answer.delay = fault.duration;
      break;
    default:
      break;
  }
  // What a Stripe-like provider records: the response execution produced, whatever
  // the network then did to it.
  const bool sent_error = answer.status >= 500;
  job.first_status = sent_error ? answer.status : created.status;
  job.first_body = sent_error ? answer.body : created.body;
  entry.job_id = store_.insert(std::move(job)).id();
  job_stored_.notify_all();
  return answer;
}

Decision ProviderCore::complete(std::uint64_t pending_commit, Millis now) {
  std::lock_guard lock(mutex_);
  now += clock_offset_;
  const auto held = std::find_if(in_flight_.begin(), in_flight_.end(), [&](const auto& item) {
    return item.second.hold == pending_commit;
  });
  if (held == in_flight_.end()) {  // a reset emptied the provider meanwhile
    return error(503, "temporarily_unavailable",
                 "the provider was reset while this request waited");
  }
  StoredJob job = std::move(held->second.job);
  const std::uint64_t seq = held->second.seq;
  in_flight_.erase(held);
  job.created_at = now;
  job.first_body = compact_json(job.job);
  const StoredJob& stored = store_.insert(std::move(job));
  job_stored_.notify_all();
  if (JournalEntry* entry = journal_entry(seq)) {
    entry->status = 201;
    entry->delivered = true;
  }
  log("[provider] key=" + stored.key + " COMMITTED job=" + stored.id() + " (after delay)");
  return json_response(201, stored.job);
}

Decision ProviderCore::replay(const StoredJob& stored) const {
  Decision replayed = config_.profile == Profile::stripe
                          ? Decision{.status = stored.first_status, .body = stored.first_body}
                          : json_response(200, stored.job);
  replayed.headers.emplace("Idempotent-Replayed", "true");
  return replayed;
}

Decision ProviderCore::lookup_job(const std::string& key, JournalEntry& entry, Millis now) {
  entry.key = key;
  const Fault fault = plan_.take_for_lookup(key, lookups_by_key_[key]++);
  if (fault.kind == FaultKind::lookup_unavailable) {
    entry.outcome = Outcome::lookup_failed;
    entry.fault = to_string(fault);
    log("[provider] key=" + key + " LOOKUP failed (lookup-unavailable)");
    return error(503, "temporarily_unavailable");
  }
  const StoredJob* stored = store_.find(key, now);
  if (stored == nullptr) {
    entry.outcome = Outcome::lookup_miss;
    log("[provider] key=" + key + " LOOKUP miss");
    return error(404, "not_found");  // exactly the original's body
  }
  entry.outcome = Outcome::lookup_hit;
  entry.job_id = stored->id();
  log("[provider] key=" + key + " LOOKUP job=" + stored->id());
  return json_response(200, stored->job);
}

Decision ProviderCore::error(int status, std::string_view code, std::string_view detail) const {
  return error_response(status, code, detail, config_.profile);
}

Decision ProviderCore::library_error(int status) const {
  switch (status) {
    case 413:
      return error(413, "payload_too_large", "the body is over the provider's --max-body limit");
    case 404:
      return error(404, "not_found");
    default:
      return error(status, "bad_request",
                   "the request is not valid HTTP/1.1 (a POST needs a body or Content-Length: 0)");
  }
}

JournalEntry* ProviderCore::journal_entry(std::uint64_t seq) {
  // Sequence numbers start at 1 and the journal only grows between resets.
  return seq >= 1 && seq <= journal_.size() ? &journal_[seq - 1] : nullptr;
}

std::size_t ProviderCore::job_count() const {
  std::lock_guard lock(mutex_);
  return store_.jobs().size();
}

bool ProviderCore::wait_for_jobs(std::size_t count,
                                 std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  return job_stored_.wait_until(lock, deadline, [&] { return store_.jobs().size() >= count; });
}

nlohmann::json ProviderCore::jobs_json() const {
  std::lock_guard lock(mutex_);
  return jobs_json_locked();
}

std::size_t ProviderCore::journal_size() const {
  std::lock_guard lock(mutex_);
  return journal_.size();
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
