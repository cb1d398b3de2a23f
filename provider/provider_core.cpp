#include "provider/provider_core.hpp"

#include <algorithm>
#include <cassert>
#include <string_view>

#include "common/invariant.hpp"
#include "common/json_text.hpp"
#include "common/utf8.hpp"
#include "provider/fault_answer.hpp"
#include "provider/json_body.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {
namespace {

constexpr std::string_view kControlPrefix = "/_test/";
constexpr std::size_t kMaxKeyLength = 255;

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
  std::string key;      // empty when the key is missing or empty
  std::string problem;  // why the key is refused, or empty
};

// Why a key cannot name an operation, or empty. `name` says where it travels.
std::string key_problem(const std::string& key, const std::string& name,
                        const ProfileRules& rules) {
  const bool in_characters = rules.key_length == KeyLength::characters;
  const std::size_t length = in_characters ? utf8_length(key).value_or(key.size()) : key.size();
  if (!key.empty() && length <= kMaxKeyLength && !has_control_character(key)) return {};
  return "an " + name + " has 1 to 255 " + (in_characters ? "characters" : "bytes") +
         " and no control characters";
}

KeyReading read_header_key(const Headers& headers, const std::string& name,
                           const ProfileRules& rules) {
  const auto [first, last] = headers.equal_range(name);
  if (first == last || first->second.empty()) return {};
  KeyReading reading{first->second, {}};
  // Two different keys name two operations: which one the client meant is not ours to
  // guess, in any profile. The ietf profile refuses even a repeated identical one.
  const bool conflicting = std::any_of(
      std::next(first), last, [&](const auto& header) { return header.second != first->second; });
  if (conflicting || (rules.refuses_repeated_key_header && std::next(first) != last)) {
    reading.problem = "send exactly one " + name + " header";
    return reading;
  }
  if (rules.reads_quoted_key) {
    const std::string& raw = first->second;
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"' &&
        !unquote_structured_string(reading.key)) {
      reading.problem = "the quoted " + name + " is not a valid structured-field string";
      return reading;
    }
  }
  reading.problem = key_problem(reading.key, name, rules);
  return reading;
}

// The shape's operation field is what the journal records when the provider is not told
// another: an API without a key is judged and looked up by it.
ProviderConfig with_shape_defaults(ProviderConfig config) {
  config.operation_field = config.api.recorded_operation_field(config.operation_field);
  return config;
}

// Whether a lookup may ask for every job a value names (ProviderCore::search): then the store
// indexes every job by key, not only a key's first.
bool searches(const ApiShape& api) {
  return !api.key.exists() || std::any_of(api.lookups.begin(), api.lookups.end(),
                                          [](const Lookup& lookup) { return lookup.list_field; });
}

}  // namespace

ProviderCore::ProviderCore(ProviderConfig config)
    : config_(with_shape_defaults(std::move(config))),
      rules_(rules_of(config_.profile)),
      errors_(config_.api.error_format.value_or(rules_.errors)),
      seed_(config_.seed),
      store_(config_.key_ttl, config_.max_keys, tables_, config_.api.created.id_prefix,
             searches(config_.api)),
      plan_(config_.initial_plan),
      job_ids_(config_.seed),
      journal_(config_.journal, tables_, config_.api.created.id_prefix),
      creates_by_key_(config_.max_keys),
      lookups_by_key_(config_.max_keys),
      front_({.server = "provider",
              .max_keys = config_.max_keys,
              .replays_first_response = rules_.replays_first_response,
              .replay_header = config_.api.replay_header,
              .errors = ErrorStyle{.shape = &config_.api, .format = errors_},
              .log = config_.log,
              // A freed job's key takes its attempt counts along: nothing per key outlives its job.
              .freeing =
                  [this](const std::string& freed) {
                    creates_by_key_.forget(freed);
                    lookups_by_key_.forget(freed);
                  }},
             store_, plan_, seed_),
      control_(*this, {.token = config_.control_token,
                       .endpoints = config_.control_endpoints,
                       .errors = ErrorStyle{.shape = &config_.api, .format = errors_}}) {}

bool ProviderCore::streams_fingerprint(const HttpRequest& request) const {
  return !config_.operation_field && config_.api.fingerprints_while_parsing(request);
}

ProviderCore::Prepared ProviderCore::prepare(const HttpRequest& request) const {
  Prepared prepared{.match = config_.api.match(request)};
  // A body over the limit is refused unread (413), as a malformed request is (400).
  if (prepared.match.kind != RequestKind::create || !prepared.match.allowed.empty() ||
      !request.malformed.empty() || request.body.size() > config_.max_body_bytes ||
      !streams_fingerprint(request)) {
    return prepared;
  }
  try {
    prepared.fingerprint = config_.api.fingerprint_of(request);
  } catch (const std::invalid_argument& problem) {
    prepared.body_problem = problem.what();
  }
  return prepared;
}

Decision ProviderCore::handle(const HttpRequest& request, Millis now) {
  // Without the lock: the control plane takes it for each piece it reads or changes.
  if (request.path.starts_with(kControlPrefix)) return control_.handle(request, now);
  Prepared prepared = prepare(request);
  std::lock_guard lock(mutex_);
  now += clock_offset_;

  JournalEntry entry{
      .seq = journal_.next_seq(), .at = now, .method = request.method, .path = request.path};
  if (request.listener != 0) entry.port = request.listener;
  if (request.client_port != 0) {
    entry.client_port = request.client_port;
    entry.new_connection = request.new_connection;
  }
  if (request.tls) entry.close_notify = false;  // until the server says it sent one
  Decision decision = route(request, prepared, entry, now);
  decision.journal_seq = entry.seq;
  // A held request is journaled now, in arrival order, and answered by complete().
  if (!decision.pending_commit) record_answer(entry, decision, now);
  check_invariant(entry.answered() != decision.pending_commit.has_value(),
                  "a journaled request is answered, or held to be answered later");
  journal_.append(std::move(entry));  // which checks that seqs stay contiguous from 1
  progressed_.notify_all();
  return decision;
}

Decision ProviderCore::route(const HttpRequest& request, Prepared& prepared, JournalEntry& entry,
                             Millis now) {
  const RouteMatch& match = prepared.match;
  if (!request.malformed.empty()) {  // journaled as the server read it, and refused
    entry.kind = match.allowed.empty() ? match.kind : RequestKind::other;
    if (entry.kind == RequestKind::lookup) record_looked_up(entry, match.key);
    entry.outcome = Outcome::invalid;
    log("[provider] " + (entry.key ? "key=" + quoted_text(*entry.key) + " " : std::string()) +
        "REJECTED (malformed request line)");
    return error(400, "bad_request", request.malformed);
  }
  if (!match.allowed.empty()) return method_not_allowed(match.allowed, errors_);
  entry.kind = match.kind;
  switch (match.kind) {
    case RequestKind::create:
      return create_job(request, prepared, entry, now);
    case RequestKind::lookup:
      return lookup_job(match.key, *match.lookup, entry, now);
    default:
      return error(404, "not_found");
  }
}

Decision ProviderCore::create_job(const HttpRequest& request, Prepared& prepared,
                                  JournalEntry& entry, Millis now) {
  const Payload payload(config_.api, request);
  std::string key;
  if (auto refused = read_create(request, prepared, payload, entry, key))
    return std::move(*refused);
  return store_create(key, payload, request, entry, now);
}

Decision ProviderCore::missing_key(JournalEntry& entry) const {
  const KeyPlace& place = config_.api.key;
  const std::string key_words = place.where == KeyPlace::Where::header
                                    ? "an " + place.name + " header"
                                    : "a \"" + place.name + "\" field";
  entry.outcome = Outcome::missing_key;
  log("[provider] REJECTED (missing " + place.name + ")");
  return error(400, "idempotency_key_required",
               "send " + key_words + " naming the logical operation");
}

Decision ProviderCore::invalid_key(const std::string& problem) const {
  log("[provider] REJECTED (invalid " + config_.api.key.name + ")");
  return error(400, "idempotency_key_invalid", problem);
}

std::optional<Decision> ProviderCore::read_create(const HttpRequest& request, Prepared& prepared,
                                                  const Payload& payload, JournalEntry& entry,
                                                  std::string& key) const {
  // A key in a header is judged before the body is read, as the original does; a key in
  // the body, once the body is.
  const KeyPlace& place = config_.api.key;
  if (place.where == KeyPlace::Where::header) {
    const KeyReading reading = read_header_key(request.headers, place.name, rules_);
    if (reading.key.empty() && reading.problem.empty()) return missing_key(entry);
    if (!reading.problem.empty()) return invalid_key(reading.problem);
    entry.key = key = reading.key;
  }
  if (auto refused = read_body(request, prepared, payload, entry)) return refused;
  if (config_.operation_field)
    entry.operation = operation_value(payload.get(), *config_.operation_field);
  if (place.where == KeyPlace::Where::body_field) {
    key = config_.api.key_of(request, payload.get());
    if (key.empty()) return missing_key(entry);
    if (const std::string problem = key_problem(key, place.name, rules_); !problem.empty())
      return invalid_key(problem);
    entry.key = key;
  }
  const bool streamed = prepared.fingerprint.has_value();
  entry.fingerprint = streamed ? std::move(*prepared.fingerprint)
                               : config_.api.fingerprint_of(request, &payload.get());
  // Without a key, the business field's value is what the store and the plan know the job
  // by (a targeted rule's "key", a lookup by that field): every create is still a new job.
  if (!place.exists()) key = entry.operation.value_or("");
  return std::nullopt;
}

std::optional<Decision> ProviderCore::read_body(const HttpRequest& request,
                                                const Prepared& prepared, const Payload& payload,
                                                const JournalEntry& entry) const {
  const std::string named = entry.key ? "key=" + quoted_text(*entry.key) + " " : std::string();
  if (request.body.size() > config_.max_body_bytes) {
    log("[provider] " + named + "REJECTED (payload too large)");
    return error(413, "payload_too_large",
                 "the body has " + std::to_string(request.body.size()) + " bytes; the limit is " +
                     std::to_string(config_.max_body_bytes));
  }
  // Streamed (prepare() read it): the fingerprint from the text, and a DOM only for a new
  // job. A shape that needs the DOM at once (its key or operation field is in the body)
  // decodes it here.
  std::optional<std::string> problem = prepared.body_problem;
  if (!problem && !prepared.fingerprint) {
    try {
      payload.get();
    } catch (const std::invalid_argument& refused) {
      problem = refused.what();
    }
  }
  if (!problem) return std::nullopt;
  const bool form = config_.api.encoding_of(request) == BodyEncoding::form;
  log("[provider] " + named + "REJECTED (invalid " + (form ? "form body" : "JSON") + ")");
  return error(400, form ? "invalid_form_body" : "invalid_json", *problem);
}

Decision ProviderCore::store_create(const std::string& key, const Payload& payload,
                                    const HttpRequest& request, JournalEntry& entry, Millis now) {
  const bool keyless = !config_.api.key.exists();
  const CreateAttempt create{
      .key = key,
      .subject = key.empty() ? std::string_view(request.path) : std::string_view(key),
      .fingerprint = Digest::from_hex(*entry.fingerprint),
      .repeats = config_.enforce_keys && !keyless ? Repeats::answered : Repeats::new_each_time,
      .keyless = keyless};
  CreateAdmission admission = front_.admit(create, entry, now);
  if (!admission.answer) return execute_create(create, payload, entry, now, admission);
  // A slowed or queued request is answered as usual, only later.
  admission.answer->delay +=
      admission.slowdown.value_or(Millis(0)) + admission.queued.value_or(Millis(0));
  return std::move(*admission.answer);
}

Decision ProviderCore::execute_create(const CreateAttempt& create, const Payload& payload,
                                      JournalEntry& entry, Millis now,
                                      const CreateAdmission& admission) {
  entry.outcome = Outcome::new_operation;
  // In a slowdown the plan is not asked: the hold is the fault, and the job commits after it.
  const std::optional<Millis> slowdown = admission.slowdown;
  PlannedFault planned =
      slowdown ? PlannedFault{Fault{.kind = FaultKind::delay_before_commit, .duration = *slowdown},
                              entry.planned.value_or("")}
               : plan_.take_for_create(create.key, payload.get(),
                                       nth_attempt(creates_by_key_, create.key, false));
  Fault fault = planned.fault;
  entry.fault = fault;
  // Queued at capacity: the job is made when its turn comes, and every answer waits for it.
  // A fault that holds holds that much longer; none holds for the queue alone (the entry
  // names no fault: the queue is the plan's capacity, journaled as the entry's queue).
  // Any other fault commits (or not) at once, and only its answer waits.
  const Millis queued = admission.queued.value_or(Millis(0));
  const bool answer_waits = queued > Millis(0) && fault.kind != FaultKind::none &&
                            row_of(fault.kind).commit != Commit::after_hold;
  if (queued > Millis(0) && !answer_waits) {
    fault = Fault{.kind = FaultKind::delay_before_commit, .duration = fault.duration + queued};
  }
  if (!planned.source.empty()) entry.planned = std::move(planned.source);
  log("[provider] " + std::string(create.keyless ? "operation=" : "key=") +
      quoted_text(create.key) + " NEW fault=" + to_string(fault));

  std::string id = job_ids_.next(config_.api.created.id_prefix);
  std::string job = compact_json(config_.api.created_object(id, payload.get()));
  Decision answer = apply_fault(fault,
                                StoredJob{.key = create.key,
                                          .fingerprint = create.fingerprint,
                                          .id = std::move(id),
                                          .body = std::move(job),
                                          .created_at = now},
                                entry);
  if (answer_waits) answer.delay += queued;
  return answer;
}

std::uint64_t ProviderCore::nth_attempt(AttemptCounts& counts, const std::string& key,
                                        bool for_lookup) {
  return plan_.draws_chaos(for_lookup) ? counts.next(key) : 0;
}

Decision ProviderCore::apply_fault(const Fault& fault, StoredJob job, JournalEntry& entry) {
  const FaultRow& row = row_of(fault.kind);
  if (row.commit == Commit::after_hold) {
    entry.job_id = job.id;
    const std::uint64_t hold = next_hold_++;
    front_.begin(job.key, true);  // in flight, and its job's place reserved
    const Millis commits_at = job.created_at + fault.duration;
    in_flight_.emplace(hold, InFlight{std::move(job), entry.seq, commits_at});
    return Decision{.delay = fault.duration, .pending_commit = hold};
  }
  const Decision created{.status = 201, .body = job.body};
  Decision answer =
      fault_answer(fault, &created, ErrorStyle{.shape = &config_.api, .format = errors_});
  if (row.commit == Commit::never) return answer;

  // What a Stripe-like provider records: the response execution produced, whatever the
  // network then did to it.
  const bool sent_error = answer.status >= 500;
  job.first_status = sent_error ? answer.status : 201;
  if (sent_error) job.first_body = answer.body;  // else the job's body is the first response
  entry.job_id = store_.insert(std::move(job)).id;
  return answer;
}

Decision ProviderCore::complete(std::uint64_t pending_commit, Millis now) {
  std::lock_guard lock(mutex_);
  now += clock_offset_;
  const auto held = in_flight_.find(pending_commit);
  if (held == in_flight_.end()) {  // a reset emptied the provider meanwhile
    return error(503, "temporarily_unavailable",
                 "the provider was reset while this request waited");
  }
  StoredJob job = std::move(held->second.job);
  const std::uint64_t seq = held->second.seq;
  in_flight_.erase(held);
  front_.end(job.key, true);
  job.created_at = now;
  const StoredJob& stored = store_.insert(std::move(job));
  progressed_.notify_all();
  const Decision created{.status = 201, .body = stored.body};
  journal_.answer(seq, created, now);
  log("[provider] key=" + quoted_text(stored.key) + " COMMITTED job=" + stored.id +
      " (after delay)");
  return created;
}

void ProviderCore::abandoned(std::uint64_t seq, Millis now) {
  std::lock_guard lock(mutex_);
  journal_.abandon(seq, now + clock_offset_);
}

void ProviderCore::close_notify_sent(std::uint64_t seq) {
  std::lock_guard lock(mutex_);
  journal_.close_notify_sent(seq);
}

void ProviderCore::record_refused(const RefusedRequest& request, Millis now) {
  std::lock_guard lock(mutex_);
  JournalEntry entry =
      refused_entry(config_.api, request, journal_.next_seq(), now + clock_offset_);
  if (request.client_port != 0) {
    entry.client_port = request.client_port;
    entry.new_connection = request.new_connection;
  }
  journal_.append(std::move(entry));
  progressed_.notify_all();
}

Millis ProviderCore::advance_clock(Millis by) {
  std::lock_guard lock(mutex_);
  clock_offset_ += by;
  return clock_offset_;
}

void ProviderCore::record_looked_up(JournalEntry& entry, const std::string& value) const {
  // Without an idempotency key, a lookup asks by the business field's value.
  (config_.api.key.exists() ? entry.key : entry.operation) = value;
}

Decision ProviderCore::error(int status, std::string_view code, std::string_view detail) const {
  return ErrorStyle{.shape = &config_.api, .format = errors_}.error(status, code, detail);
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

std::size_t ProviderCore::job_count() const {
  std::lock_guard lock(mutex_);
  return store_.size();
}

bool ProviderCore::wait_until(const std::function<bool(const Progress&)>& reached,
                              std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  return progressed_.wait_until(lock, deadline, [&] {
    return reached(Progress{store_.size(), journal_.next_seq() - 1});
  });
}

ProviderCore::Progress ProviderCore::progress() const {
  std::lock_guard lock(mutex_);
  return Progress{store_.size(), journal_.next_seq() - 1};
}

std::vector<JournalEntry> ProviderCore::journal() const {
  JournalSlice slice;
  {
    std::lock_guard lock(mutex_);
    slice = journal_.slice(0, 0);
  }
  return slice.entries();  // the spilled ones read and parsed after the lock
}

ProviderCore::Retention ProviderCore::retention() const {
  std::lock_guard lock(mutex_);
  return {store_.keys(),           creates_by_key_.size() + lookups_by_key_.size(),
          store_.freed_jobs(),     journal_.spilled(),
          journal_.dropped(),      tables_->keys.size(),
          tables_->digests.size(), journal_.texts()};
}

std::vector<PlanUse> ProviderCore::plan_uses() const {
  std::lock_guard lock(mutex_);
  return plan_.uses();
}

std::vector<JobRecord> ProviderCore::jobs() const {
  std::vector<StoredJob> held;
  {
    std::lock_guard lock(mutex_);
    held.reserve(store_.size());
    for (std::size_t i = 0; i < store_.size(); ++i)
      held.push_back(store_.at(i));
  }
  std::vector<JobRecord> records;
  records.reserve(held.size());
  for (const StoredJob& job : held)
    records.push_back({job.id, job.key, nlohmann::json::parse(job.body)});
  return records;
}

std::size_t ProviderCore::journal_size() const {
  std::lock_guard lock(mutex_);
  return journal_.count();
}

nlohmann::json ProviderCore::journal_json() const {
  return journal_document(*this);
}

nlohmann::json ProviderCore::jobs_json() const {
  return jobs_document(*this);
}

ControlContext ProviderCore::control_context() const {
  std::lock_guard lock(mutex_);
  return {.server = "provider",
          .seed = seed_,
          .operation_field = config_.operation_field,
          .api = &config_.api};
}

void ProviderCore::inspect(const std::function<void(const ControlledState&)>& read) const {
  std::lock_guard lock(mutex_);
  read(ControlledState{journal_, store_, resets_});
}

nlohmann::json ProviderCore::fault_plan() const {
  std::lock_guard lock(mutex_);
  return plan_.shown_json();  // the plan in force, and how often each entry fired
}

nlohmann::json ProviderCore::install_plan(const nlohmann::json& body, Millis now) {
  std::lock_guard lock(mutex_);
  plan_ = FaultPlan::from_body(body, plan_, now + clock_offset_);
  return plan_.to_json();
}

std::uint64_t ProviderCore::reset(std::optional<std::uint64_t> seed) {
  std::lock_guard lock(mutex_);
  seed_ = seed.value_or(seed_);
  store_.clear();
  plan_ = FaultPlan{};
  job_ids_ = JobIdGenerator(seed_);
  journal_.clear();
  ++resets_;
  in_flight_.clear();
  front_.clear();
  creates_by_key_.clear();
  lookups_by_key_.clear();
  return seed_;
}

void ProviderCore::log(const std::string& line) const {
  if (config_.log) config_.log(line);
}

}  // namespace retryproof::provider
