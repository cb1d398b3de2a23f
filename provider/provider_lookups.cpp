// ProviderCore's lookups: by key, or, without idempotency keys, by the business field's value
// (a search of the objects). Its own file beside provider_core.cpp; the same class and lock.
#include <string>
#include <vector>

#include "common/json_text.hpp"
#include "common/utf8.hpp"
#include "provider/fault_answer.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::provider {

Decision ProviderCore::lookup_job(const std::string& key, const Lookup& route, JournalEntry& entry,
                                  Millis now) {
  record_looked_up(entry, key);
  CreateAdmission outage =
      front_.ask_outage(key.empty() ? std::string_view(entry.path) : key, true, entry, now);
  if (outage.answer) return *outage.answer;
  front_.ask_queue(entry, outage, now);
  if (outage.answer) return *outage.answer;
  const Millis queued = outage.queued.value_or(Millis(0));
  if (outage.slowdown) {  // slowed: the plan is not asked, and the answer is the store's, later
    Decision answer = find_job(key, route, entry, now, now + *outage.slowdown + queued);
    answer.delay += *outage.slowdown + queued;
    return answer;
  }
  PlannedFault planned = plan_.take_for_lookup(key, nth_attempt(lookups_by_key_, key, true));
  const Fault fault = planned.fault;
  if (fault.kind != FaultKind::none) {
    entry.planned = std::move(planned.source);
    const FaultRow& row = row_of(fault.kind);
    entry.outcome = Outcome::lookup_failed;
    entry.fault = fault;
    log("[provider] key=" + quoted_text(key) + " LOOKUP failed (" + std::string(row.name) + ")");
    Decision answer =
        fault_answer(fault, nullptr, ErrorStyle{.shape = &config_.api, .format = errors_});
    answer.delay += queued;
    return answer;
  }
  Decision answer = find_job(key, route, entry, now, now + queued);
  answer.delay += queued;
  return answer;
}

Decision ProviderCore::find_job(const std::string& key, const Lookup& route, JournalEntry& entry,
                                Millis now, Millis served_at) {
  // Without a key, a lookup is a search by the business field, as a list lookup always is.
  if (route.list_field || !config_.api.key.exists()) return search(key, route.list_field, entry);
  const std::optional<JobView> stored =
      key.empty() ? std::nullopt : store_.view(key, now);  // an empty value names nothing
  if (!stored && served_at > now) {
    // Queued behind its own create, it is served after that create commits, as a server that
    // works through its queue in order serves it: not a 404 read at its arrival.
    if (const StoredJob* coming = committed_by(key, served_at)) {
      entry.outcome = Outcome::lookup_hit;
      entry.job_id = coming->id;
      log("[provider] key=" + quoted_text(key) + " LOOKUP job=" + coming->id + " (queued)");
      return Decision{.status = 200, .body = coming->body};
    }
  }
  if (!stored) {
    entry.outcome = Outcome::lookup_miss;
    log("[provider] key=" + quoted_text(key) + " LOOKUP miss");
    return error(404, "not_found");  // exactly the original's body
  }
  entry.outcome = Outcome::lookup_hit;
  entry.job_id = stored->id;
  log("[provider] key=" + quoted_text(key) + " LOOKUP job=" + stored->id);
  return Decision{.status = 200, .body = std::string(stored->body)};
}

// A scan of the requests held in flight, as many as the queue holds at most; only a lookup
// that waits, and misses the store, makes it.
const StoredJob* ProviderCore::committed_by(const std::string& key, Millis served_at) const {
  if (key.empty()) return nullptr;
  for (const auto& [hold, held] : in_flight_)
    if (held.job.key == key && held.commits_at <= served_at) return &held.job;
  return nullptr;
}

Decision ProviderCore::search(const std::string& value,
                              const std::optional<std::string>& list_field, JournalEntry& entry) {
  // A search answers every job the value names, oldest first, however long ago it was
  // made: it reads the objects, which outlive the idempotency index's keys.
  const std::vector<StoredJob> found =
      value.empty() ? std::vector<StoredJob>{} : store_.jobs_named(value);
  entry.outcome = found.empty() ? Outcome::lookup_miss : Outcome::lookup_hit;
  if (!found.empty()) entry.job_id = found.front().id;
  log("[provider] key=" + quoted_text(value) + " LOOKUP " +
      (found.empty() ? std::string("miss") : "job=" + found.front().id));
  if (!list_field) {
    return found.empty() ? error(404, "not_found")
                         : Decision{.status = 200, .body = found.front().body};
  }
  std::string items;
  for (const StoredJob& job : found)
    items += (items.empty() ? "" : ",") + job.body;
  return Decision{.status = 200,
                  .body = "{" + compact_json(nlohmann::json(*list_field)) + ":[" + items + "]}"};
}

}  // namespace retryproof::provider
