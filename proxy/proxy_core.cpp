#include "proxy/proxy_core.hpp"

#include <algorithm>
#include <cassert>

#include "common/utf8.hpp"
#include "provider/error_codes.hpp"
#include "provider/json_body.hpp"
#include "provider/responses.hpp"
#include "proxy/proxy_faults.hpp"
#include "proxy/request_class.hpp"

namespace retryproof::proxy {
namespace {

using provider::Decision;
using provider::Fault;
using provider::FaultKind;
using provider::HttpRequest;
using provider::JournalEntry;
using provider::Outage;
using provider::Outcome;
using provider::RequestKind;

constexpr std::string_view kControlPrefix = "/_test/";

bool is_success(int status) {
  return status >= 200 && status < 300;
}

bool says_replayed(const UpstreamAnswer& answer, const std::string& header) {
  const auto replayed = answer.headers.find(header);
  return replayed != answer.headers.end() && replayed->second == "true";
}

// What the upstream's answer to a create says happened, by its status.
Outcome create_outcome(int status, bool has_key) {
  if (status == 409) return Outcome::conflict;
  if (status == 422) return Outcome::rejected;
  if (status == 400 && !has_key) return Outcome::missing_key;
  if (status >= 400 && status < 500) return Outcome::invalid;
  return Outcome::new_operation;  // a 5xx: an attempt the upstream failed
}

// The status the provider itself sends the code with, which the outcomes above read: the
// answer's own when it names no code a row knows.
int provider_status(const std::string& code, int status) {
  const provider::ErrorCodeRow* row = code.empty() ? nullptr : provider::error_code_row(code);
  return row == nullptr ? status : row->status;
}

Outcome lookup_outcome(int status) {
  if (status == 200) return Outcome::lookup_hit;
  if (status == 404) return Outcome::lookup_miss;
  return Outcome::lookup_failed;
}

// The shape's operation field, unless told another: a keyless API is judged by it.
ProxyConfig with_shape_defaults(ProxyConfig config) {
  config.operation_field = config.api.recorded_operation_field(config.operation_field);
  return config;
}

}  // namespace

ProxyCore::ProxyCore(ProxyConfig config)
    : config_(with_shape_defaults(std::move(config))),
      errors_{.shape = &config_.api, .format = provider::error_format_of(config_.api)},
      seed_(config_.seed),
      plan_(config_.initial_plan),
      journal_(config_.journal, tables_, config_.api.created.id_prefix),
      jobs_(config_.key_ttl, config_.max_keys, tables_, config_.api.created.id_prefix),
      job_ids_(config_.max_keys),
      creates_by_key_(config_.max_keys),
      lookups_by_key_(config_.max_keys),
      front_({.server = "proxy",
              .max_keys = config_.max_keys,
              .replay_header = config_.api.replay_header,
              .errors = errors_,
              .log = config_.log,
              // A freed job's key takes its attempt counts along: nothing per key outlives its job.
              .freeing =
                  [this](const std::string& freed) {
                    creates_by_key_.forget(freed);
                    lookups_by_key_.forget(freed);
                  }},
             jobs_, plan_, seed_),
      control_(*this, {.token = config_.control_token,
                       .endpoints = config_.control_endpoints,
                       .errors = errors_}) {
  journal_.set_extra_fields([this](std::uint64_t seq, nlohmann::json& entry) {
    add_upstream_fields(entry, upstream_of(seq));
  });
}

UpstreamFields& ProxyCore::upstream_of(std::uint64_t seq) {
  assert(seq >= journal_.first_in_memory() && seq < journal_.next_seq());
  return upstream_[seq - journal_.first_in_memory()];
}

void ProxyCore::append(const JournalEntry& entry) {
  upstream_.emplace_back();
  journal_.append(entry);  // past --journal-limit, the oldest move out, with their fields
  while (upstream_.size() > journal_.in_memory())
    upstream_.pop_front();
}

Decision ProxyCore::error(int status, std::string_view code, std::string_view detail) const {
  return errors_.error(status, code, detail);
}

Disposition ProxyCore::begin(const HttpRequest& request, Millis now) {
  // Without the lock: the control plane takes it for each piece it reads or changes.
  if (request.path.starts_with(kControlPrefix)) return control_.handle(request, now);
  // The body decoded and fingerprinted before the lock: the I/O threads do this side by side.
  const RequestClass seen = classify(config_.api, request);
  std::lock_guard lock(mutex_);
  now += clock_offset_;
  JournalEntry entry;
  entry.seq = journal_.next_seq();
  entry.at = now;
  entry.method = request.method;
  entry.path = request.path;
  if (request.tls) entry.close_notify = false;  // until the server says it sent one
  Disposition step = route(request, seen, entry, now);
  if (auto* answer = std::get_if<Decision>(&step)) {
    answer->journal_seq = entry.seq;
    // A held request is answered when its forward is; an answer from here ends now.
    if (!answer->pending_commit) provider::record_answer(entry, *answer, now);
  }
  append(entry);
  return step;
}

Disposition ProxyCore::route(const HttpRequest& request, const RequestClass& seen,
                             JournalEntry& entry, Millis now) {
  entry.kind = seen.kind;
  if (!request.malformed.empty()) {  // journaled as the server read it, refused, not forwarded
    if (seen.kind == RequestKind::lookup) entry.key = seen.key;
    entry.outcome = Outcome::invalid;
    log("[proxy] " + (entry.key ? "key=" + quoted_text(*entry.key) + " " : std::string()) +
        "REJECTED (malformed request line)");
    return provider::error_response(400, "bad_request", request.malformed);
  }
  if (seen.kind == RequestKind::create) return route_create(request, seen, entry, now);
  if (seen.kind == RequestKind::lookup) return route_lookup(request, seen, entry, now);
  return forward(request, entry, std::nullopt);
}

namespace {

// The proxy holds a request its capacity queued as it holds one an outage slowed, then
// forwards it: the plan is not asked for it (unlike the provider, which draws its fault).
void queue_as_slowdown(provider::CreateAdmission& admission) {
  if (!admission.queued) return;
  admission.slowdown = admission.slowdown.value_or(Millis(0)) + *admission.queued;
  admission.queued.reset();
}

}  // namespace

Disposition ProxyCore::route_lookup(const HttpRequest& request, const RequestClass& seen,
                                    JournalEntry& entry, Millis now) {
  // Without idempotency keys a lookup asks by the business field's value.
  (config_.api.key.exists() ? entry.key : entry.operation) = seen.key;
  // As at the provider: asked before anything else, by key (else path), and drawn from the
  // seed, so a brownout draws the same requests whatever order keys arrive in.
  const std::string_view subject = seen.key.empty() ? std::string_view(request.path) : seen.key;
  provider::CreateAdmission outage = front_.ask_outage(subject, true, entry, now);
  if (outage.answer) return *outage.answer;
  front_.ask_queue(entry, outage, now);
  if (outage.answer) return *outage.answer;
  queue_as_slowdown(outage);
  if (outage.slowdown) return hold(request, entry, std::nullopt, *outage.slowdown, {}, false);
  provider::PlannedFault planned =
      plan_.take_for_lookup(seen.key, nth_attempt(lookups_by_key_, seen.key, true));
  const Fault fault = planned.fault;
  if (fault.kind == FaultKind::none) return forward(request, entry, std::nullopt);
  entry.outcome = Outcome::lookup_failed;  // lookup-unavailable, answered here
  entry.fault = fault;
  entry.planned = std::move(planned.source);
  log("[proxy] key=" + quoted_text(seen.key) + " LOOKUP failed (" + provider::to_string(fault) +
      ")");
  return fault_answer(fault, nullptr, errors_);
}

Disposition ProxyCore::route_create(const HttpRequest& request, const RequestClass& seen,
                                    JournalEntry& entry, Millis now) {
  if (!seen.key.empty()) entry.key = seen.key;
  entry.fingerprint = seen.fingerprint;
  if (config_.operation_field && seen.payload) {
    entry.operation = provider::operation_value(*seen.payload, *config_.operation_field);
  }
  // Without idempotency keys, faults are planned by the business field's value, and a
  // repeat is a new object upstream, never a replay. Without --enforce-keys a repeat of a
  // key the upstream committed is the upstream's to answer.
  const bool keyless = !config_.api.key.exists();
  const std::string key = keyless ? entry.operation.value_or("") : seen.key;
  using provider::Repeats;
  const provider::CreateAttempt create{
      .key = key,
      .subject = key.empty() ? std::string_view(request.path) : std::string_view(key),
      .fingerprint = provider::Digest::from_hex(seen.fingerprint.value_or("")),
      .repeats = keyless                ? Repeats::new_each_time
                 : config_.enforce_keys ? Repeats::answered
                                        : Repeats::passed_on,
      .keyless = keyless,
      // Without a key or a JSON object there is no operation to fail: the upstream says
      // what is wrong with the request.
      .names_operation = !key.empty() && seen.payload.has_value()};
  provider::CreateAdmission admission = front_.admit(create, entry, now);
  queue_as_slowdown(admission);
  if (admission.answer) {
    if (admission.slowdown) admission.answer->delay += *admission.slowdown;
    return std::move(*admission.answer);
  }
  if (admission.passed_on) {
    if (admission.slowdown)
      return hold(request, entry, std::nullopt, *admission.slowdown, key, false);
    return forward(request, entry, std::nullopt, key);
  }
  return new_operation(request, create, *seen.payload, entry, admission.slowdown);
}

Disposition ProxyCore::new_operation(const HttpRequest& request,
                                     const provider::CreateAttempt& create,
                                     const nlohmann::json& payload, JournalEntry& entry,
                                     std::optional<Millis> slowdown) {
  // In a slowdown the plan is not asked: the hold is the fault, and the upstream is asked after it.
  provider::PlannedFault planned =
      slowdown ? provider::PlannedFault{Fault{.kind = FaultKind::delay_before_commit,
                                              .duration = *slowdown},
                                        entry.planned.value_or("")}
               : plan_.take_for_create(create.key, payload,
                                       nth_attempt(creates_by_key_, create.key, false));
  const Fault fault = planned.fault;
  entry.fault = fault;
  if (!planned.source.empty()) entry.planned = std::move(planned.source);
  entry.outcome = Outcome::new_operation;
  log("[proxy] " + std::string(create.keyless ? "operation=" : "key=") + quoted_text(create.key) +
      " NEW fault=" + provider::to_string(fault));
  switch (proxy_row_of(fault.kind).action) {
    case ProxyAction::answer_here:
      return fault_answer(fault, nullptr, errors_);
    case ProxyAction::hold_then_forward:
      return hold(request, entry, fault, fault.duration, create.key, true);
    case ProxyAction::forward:
    case ProxyAction::forward_then_replace:
      break;
  }
  return forward(request, entry, fault, create.key, true);
}

std::uint64_t ProxyCore::nth_attempt(provider::AttemptCounts& counts, const std::string& key,
                                     bool for_lookup) {
  return plan_.draws_chaos(for_lookup) ? counts.next(key) : 0;
}

Disposition ProxyCore::forward(const HttpRequest& request, const JournalEntry& entry,
                               std::optional<Fault> fault, const std::string& key, bool reserved) {
  const std::uint64_t ticket = next_ticket_++;
  pending_.emplace(ticket, Pending{entry.seq, key, fault, {}, reserved});
  front_.begin(key, reserved);
  return Forward{ticket, request};
}

Decision ProxyCore::hold(const HttpRequest& request, const JournalEntry& entry,
                         std::optional<Fault> fault, Millis duration, const std::string& key,
                         bool reserved) {
  const std::uint64_t ticket = next_ticket_++;
  pending_.emplace(ticket, Pending{entry.seq, key, fault, request, reserved});
  front_.begin(key, reserved);
  return Decision{.delay = duration, .pending_commit = ticket};
}

Disposition ProxyCore::release(std::uint64_t pending_commit, Millis /*now*/) {
  std::lock_guard lock(mutex_);
  const auto held = pending_.find(pending_commit);
  if (held == pending_.end() || !held->second.held) {  // a reset emptied the proxy meanwhile
    return error(503, "temporarily_unavailable", "the proxy was reset while this request waited");
  }
  HttpRequest request = std::move(*held->second.held);
  held->second.held.reset();
  return Forward{pending_commit, std::move(request)};
}

Decision ProxyCore::finish(std::uint64_t ticket, const UpstreamAnswer& answer, Millis now) {
  std::lock_guard lock(mutex_);
  now += clock_offset_;
  const bool failed = answer.failure != UpstreamFailure::none;
  const auto found = pending_.find(ticket);
  if (found == pending_.end()) {  // reset meanwhile: passed on, and not journaled
    return failed ? failure_decision(answer, errors_) : as_decision(answer);
  }
  const Pending pending = std::move(found->second);
  pending_.erase(found);
  front_.end(pending.key, pending.reserved);
  // An unanswered entry stays in memory, whatever the journal's limit.
  std::optional<Decision> decision;
  journal_.amend(pending.seq,
                 [&](JournalEntry& entry) { decision = settle(entry, pending, answer, now); });
  assert(decision);
  if (!decision) return failed ? failure_decision(answer, errors_) : as_decision(answer);
  return std::move(*decision);
}

Decision ProxyCore::settle(JournalEntry& entry, const Pending& pending,
                           const UpstreamAnswer& answer, Millis now) {
  const bool failed = answer.failure != UpstreamFailure::none;
  UpstreamFields& upstream = upstream_of(entry.seq);
  const std::string who = !entry.key ? entry.method + " " + quoted_text(entry.path)
                                     : "key=" + quoted_text(*entry.key) +
                                           (entry.kind == RequestKind::lookup ? " LOOKUP" : "");

  Decision decision;
  std::string line = "[proxy] " + who + " UPSTREAM ";
  if (failed) {
    upstream.error = answer.failure;
    if (entry.kind == RequestKind::lookup) entry.outcome = Outcome::lookup_failed;
    decision = failure_decision(answer, errors_);
    line += std::string(row_of(answer.failure).name) + " (" + answer.detail +
            "): " + std::to_string(decision.status);
  } else {
    upstream.status = static_cast<std::uint16_t>(answer.status);
    decision = as_decision(answer);
    // What the shape says the answer meant, for the journal and the outcome: a 400
    // ThrottlingException is the rate limit it was mapped from.
    decision.code = errors_.code_of(answer.status, answer.body).value_or("");
    read_answer(entry, pending, answer, now, provider_status(decision.code, answer.status));
    line +=
        std::to_string(answer.status) + (entry.job_id ? " job=" + escape_text(*entry.job_id) : "");
  }
  if (pending.fault &&
      proxy_row_of(pending.fault->kind).action == ProxyAction::forward_then_replace) {
    // "After the commit" needs a commit: an upstream that failed, or refused the request,
    // gets its own answer (or the proxy's 502/504) to the client, and the fault is spent.
    if (!failed && is_success(answer.status)) {
      decision = fault_answer(*pending.fault, &decision, errors_);
      line += ", sent as " + provider::to_string(*pending.fault);
    } else {
      line += ", " + provider::to_string(*pending.fault) + " not applied: nothing was committed";
      entry.fault.reset();
    }
  }
  log(line);
  provider::record_answer(entry, decision, now);
  decision.journal_seq = entry.seq;
  return decision;
}

void ProxyCore::read_answer(JournalEntry& entry, const Pending& pending,
                            const UpstreamAnswer& answer, Millis now, int status) {
  if (entry.kind == RequestKind::lookup) {
    entry.outcome = lookup_outcome(status);
    if (entry.outcome == Outcome::lookup_hit) entry.job_id = object_id(config_.api, answer.body);
    return;
  }
  if (entry.kind != RequestKind::create) return;  // `other`, as the journal says of them
  if (!is_success(answer.status)) {
    // An API without keys needs none: its refusals are not for a missing key.
    entry.outcome = create_outcome(status, entry.key.has_value() || !config_.api.key.exists());
    return;
  }
  entry.job_id = object_id(config_.api, answer.body);
  const bool known = entry.job_id && job_ids_.contains(*entry.job_id);
  entry.outcome = known || says_replayed(answer, config_.api.replay_header)
                      ? Outcome::replay
                      : Outcome::new_operation;
  if (!entry.job_id || known) return;
  // A create with no place reserved (no key, no JSON object, a slowdown's) that the upstream
  // made a job of anyway: held only if it fits, so that max_keys holds whatever it sends.
  if (!pending.reserved && !front_.has_room(now)) {
    log("[proxy] job=" + escape_text(*entry.job_id) + " not held: the proxy holds its --max-keys");
    return;
  }
  job_ids_.insert(*entry.job_id);
  jobs_.insert(
      provider::StoredJob{.key = pending.key,
                          .fingerprint = provider::Digest::from_hex(entry.fingerprint.value_or("")),
                          .id = *entry.job_id,
                          .body = answer.body,  // also the first response, replayed as it was
                          .created_at = now,
                          .first_status = answer.status});
}

void ProxyCore::close_notify_sent(std::uint64_t seq) {
  std::lock_guard lock(mutex_);
  journal_.close_notify_sent(seq);  // not when a reset emptied the journal meanwhile
}

void ProxyCore::record_refused(const provider::RefusedRequest& request, Millis now) {
  std::lock_guard lock(mutex_);
  append(provider::refused_entry(config_.api, request, journal_.next_seq(), now + clock_offset_));
}

std::vector<JournalEntry> ProxyCore::journal() const {
  provider::JournalSlice slice;
  {
    std::lock_guard lock(mutex_);
    slice = journal_.slice(0, 0);
  }
  return slice.entries();  // the spilled ones read and parsed after the lock
}

ProxyCore::Retention ProxyCore::retention() const {
  std::lock_guard lock(mutex_);
  return {.held_jobs = jobs_.size(),
          .freed_jobs = jobs_.freed_jobs(),
          .known_job_ids = job_ids_.size(),
          .counted_creates = creates_by_key_.size(),
          .counted_lookups = lookups_by_key_.size(),
          .journal_in_memory = journal_.in_memory(),
          .spilled_entries = journal_.spilled(),
          .dropped_entries = journal_.dropped()};
}

nlohmann::json ProxyCore::journal_json() const {
  return provider::journal_document(*this);
}

nlohmann::json ProxyCore::jobs_json() const {
  return provider::jobs_document(*this);
}

provider::ControlContext ProxyCore::control_context() const {
  std::lock_guard lock(mutex_);
  return {.server = "proxy",
          .seed = seed_,
          .operation_field = config_.operation_field,
          .api = &config_.api};
}

void ProxyCore::inspect(const std::function<void(const provider::ControlledState&)>& read) const {
  std::lock_guard lock(mutex_);
  read(provider::ControlledState{journal_, jobs_, resets_});
}

nlohmann::json ProxyCore::fault_plan() const {
  std::lock_guard lock(mutex_);
  return plan_.shown_json();  // the plan in force, and how often each entry fired
}

nlohmann::json ProxyCore::install_plan(const nlohmann::json& body, Millis now) {
  std::lock_guard lock(mutex_);
  plan_ = provider::FaultPlan::from_body(body, plan_, now + clock_offset_);
  return plan_.to_json();
}

std::uint64_t ProxyCore::reset(std::optional<std::uint64_t> seed) {
  std::lock_guard lock(mutex_);
  // The ids are the upstream's: a seed reseeds the brownouts' draw alone. The upstream is not
  // reset.
  seed_ = seed.value_or(seed_);
  plan_ = provider::FaultPlan{};
  journal_.clear();
  upstream_.clear();
  jobs_.clear();
  job_ids_.clear();
  pending_.clear();
  front_.clear();
  creates_by_key_.clear();
  lookups_by_key_.clear();
  ++resets_;
  return seed_;
}

Millis ProxyCore::advance_clock(Millis by) {
  std::lock_guard lock(mutex_);
  clock_offset_ += by;
  return clock_offset_;
}

void ProxyCore::log(const std::string& line) const {
  if (config_.log) config_.log(line);
}

}  // namespace retryproof::proxy
