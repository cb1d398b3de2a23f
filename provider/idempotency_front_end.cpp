#include "provider/idempotency_front_end.hpp"

#include "common/utf8.hpp"
#include "provider/fault_answer.hpp"

namespace retryproof::provider {

const std::vector<AdmissionStage>& admission_stages() {
  static const std::vector<AdmissionStage> stages = {
      {"outage", &IdempotencyFrontEnd::outage_stage},
      {"queue", &IdempotencyFrontEnd::queue_stage},
      {"in-flight", &IdempotencyFrontEnd::in_flight_stage},
      {"stored", &IdempotencyFrontEnd::stored_stage},
      {"capacity", &IdempotencyFrontEnd::capacity_stage},
  };
  return stages;
}

IdempotencyFrontEnd::IdempotencyFrontEnd(FrontEndConfig config, IdempotencyStore& jobs,
                                         FaultPlan& plan, const std::uint64_t& seed)
    : config_(std::move(config)), jobs_(jobs), plan_(plan), seed_(seed) {}

CreateAdmission IdempotencyFrontEnd::admit(const CreateAttempt& create, JournalEntry& entry,
                                           Millis now) {
  CreateAdmission admission;
  for (const AdmissionStage& stage : admission_stages()) {
    (this->*stage.run)(create, entry, admission, now);
    if (!admission.new_operation()) break;
  }
  return admission;
}

CreateAdmission IdempotencyFrontEnd::ask_outage(std::string_view subject, bool for_lookup,
                                                JournalEntry& entry, Millis now) {
  CreateAdmission admission;
  const std::optional<PlannedOutage> taken =
      plan_.take_outage(std::string(subject), for_lookup, now, seed_);
  if (!taken) return admission;
  entry.planned = taken->source;
  const Outage* outage = &taken->outage;
  if (outage->slowdown) {
    admission.slowdown = outage->slowdown;
    return admission;
  }
  entry.outcome = Outcome::outage;
  entry.fault = outage->fault;
  std::string named;
  if (entry.key)
    named = "key=" + quoted_text(*entry.key) + " ";
  else if (entry.operation)
    named = "operation=" + quoted_text(*entry.operation) + " ";
  log(named + "OUTAGE (" + outage->fault_name() + ")");
  admission.answer = fault_answer(outage->fault, nullptr, config_.errors);
  return admission;
}

void IdempotencyFrontEnd::outage_stage(const CreateAttempt& create, JournalEntry& entry,
                                       CreateAdmission& admission, Millis now) {
  // Asked before the store: a service that is down replays nothing either. A create it fails
  // commits nothing, and its key stays unknown.
  admission = ask_outage(create.subject, false, entry, now);
  if (!admission.answer && !create.names_operation) admission.passed_on = true;
}

void IdempotencyFrontEnd::queue_stage(const CreateAttempt& /*create*/, JournalEntry& entry,
                                      CreateAdmission& admission, Millis now) {
  ask_queue(entry, admission, now);
}

void IdempotencyFrontEnd::ask_queue(JournalEntry& entry, CreateAdmission& admission, Millis now) {
  const std::optional<Queued> queued = plan_.take_queue(now);
  if (!queued) return;
  entry.queue = JournalEntry::Queue{queued->depth, queued->wait};
  if (!queued->shed) {
    admission.queued = queued->served;
    return;
  }
  entry.outcome = Outcome::shed;
  entry.planned = "capacity";
  log("SHED (past capacity: " + std::to_string(queued->depth) + " requests ahead)");
  admission.answer =
      config_.errors.error(503, "overloaded",
                           "the " + std::string(config_.server) + " is past its capacity (" +
                               std::to_string(queued->depth) + " requests ahead); retry later");
}

void IdempotencyFrontEnd::in_flight_stage(const CreateAttempt& create, JournalEntry& entry,
                                          CreateAdmission& admission, Millis /*now*/) {
  if (create.repeats != Repeats::answered || !in_flight_.contains(create.key)) return;
  entry.outcome = Outcome::conflict;
  log("key=" + quoted_text(create.key) + " CONFLICT (in flight)");
  admission.answer =
      config_.errors.error(409, "idempotency_key_in_flight",
                           "the first request with this key is still being processed; retry later");
}

void IdempotencyFrontEnd::stored_stage(const CreateAttempt& create, JournalEntry& entry,
                                       CreateAdmission& admission, Millis now) {
  if (create.repeats == Repeats::new_each_time) return;
  const std::optional<JobView> stored = jobs_.view(create.key, now);
  if (!stored) return;
  if (create.repeats == Repeats::passed_on) {  // the upstream's replay (or refusal) to give
    admission.passed_on = true;
    return;
  }
  entry.job_id = stored->id;
  const std::string key = quoted_text(create.key);
  if (stored->fingerprint != create.fingerprint) {
    entry.outcome = Outcome::rejected;
    log("key=" + key + " REJECTED (payload changed)");
    admission.answer =
        config_.errors.error(422, "idempotency_key_reused_with_different_payload",
                             "this key created " + stored->id +
                                 " with a different payload; a changed request needs a new key");
    return;
  }
  entry.outcome = Outcome::replay;
  log("key=" + key + " REPLAY job=" + escape_text(stored->id));
  admission.answer = replay_of(*stored);
}

void IdempotencyFrontEnd::capacity_stage(const CreateAttempt& create, JournalEntry& entry,
                                         CreateAdmission& admission, Millis now) {
  // Refused before a fault is drawn: a refusal consumes no part of the plan.
  if (has_room(now)) return;
  entry.outcome = Outcome::capacity_exhausted;
  log(std::string(create.keyless ? "operation=" : "key=") + quoted_text(create.key) +
      " REFUSED (capacity exhausted)");
  admission.answer = config_.errors.error(
      507, "capacity_exhausted",
      "the " + std::string(config_.server) + " holds " + std::to_string(*config_.max_keys) +
          " keys, its --max-keys; replays and lookups still work");
}

bool IdempotencyFrontEnd::has_room(Millis now) {
  return jobs_.has_room(reserved_, now, config_.freeing);
}

Decision IdempotencyFrontEnd::replay_of(const JobView& stored) const {
  Decision replayed =
      config_.replays_first_response
          ? Decision{.status = stored.first_status, .body = std::string(stored.first_response())}
          : Decision{.status = 200, .body = std::string(stored.body)};
  replayed.headers.emplace(config_.replay_header, "true");
  return replayed;
}

void IdempotencyFrontEnd::begin(const std::string& key, bool reserves_room) {
  if (!key.empty()) ++in_flight_[key];
  if (reserves_room) ++reserved_;
}

void IdempotencyFrontEnd::end(const std::string& key, bool reserves_room) {
  if (const auto held = in_flight_.find(key); held != in_flight_.end() && --held->second == 0)
    in_flight_.erase(held);
  if (reserves_room && reserved_ > 0) --reserved_;
}

void IdempotencyFrontEnd::clear() {
  in_flight_.clear();
  reserved_ = 0;
}

void IdempotencyFrontEnd::log(const std::string& line) const {
  if (config_.log) config_.log("[" + std::string(config_.server) + "] " + line);
}

}  // namespace retryproof::provider
