// The idempotency front end the provider and the proxy both put before a create: what a
// service answers a repeated key without executing anything, and the outage that answers
// before its store is read. Its stages run in order, one row each of admission_stages():
//
//   outage     the plan's outage window: the service is down (its fault answers), or slow
//              (noted: a new operation is held that long, any other answer comes that late)
//   queue      the plan's capacity: a service past it sheds the request (503 overloaded),
//              or queues it (noted: its answer comes after its wait and service)
//   in-flight  the key's first request is still held, or at the upstream: 409
//   stored     the key names a job: 422 for another payload, else its replay (or, for a
//              proxy that leaves repeats to its upstream, passed on without a fault)
//   capacity   --max-keys: 507 once the jobs of expired keys are freed
//
// The first stage that answers ends the create; what passes them all is a new operation,
// for its core to draw a fault for and execute (the provider commits, the proxy forwards).
// A new kind of answer a service gives before executing (a business field that must be
// unique, a queue in front of a service at capacity) is a stage: a row, and one function.
// Not thread-safe: its core calls it under its lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "provider/digest.hpp"
#include "provider/fault_plan.hpp"
#include "provider/http_types.hpp"
#include "provider/idempotency_store.hpp"
#include "provider/journal.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {

// What a repeated key gets.
enum class Repeats {
  answered,       // a replay, or a 409 or 422, from here: the provider; a proxy enforcing keys
  passed_on,      // left to the upstream, without a fault: a proxy that does not enforce keys
  new_each_time,  // every create is a new operation: no keys enforced, or an API without keys
};

// A create, as read by its core.
struct CreateAttempt {
  const std::string& key;    // its idempotency key; in an API without keys, its operation's value
  std::string_view subject;  // what an outage draws by: the key, else the request's path
  Digest fingerprint;        // of its payload
  Repeats repeats = Repeats::answered;
  bool keyless = false;  // an API without keys: logged as operation=, not key=
  // False for a create nothing could fail (the proxy: no key, or a body that is not a JSON
  // object): the outage still answers it, the upstream says what is wrong with it.
  bool names_operation = true;
};

// What the stages made of it.
struct CreateAdmission {
  std::optional<Decision> answer;  // a stage answered it: nothing is executed
  std::optional<Millis> slowdown;  // an outage's slowdown: a new operation is held that long
  // Its wait in the capacity's queue and its service: its answer comes this much later, and
  // a new operation commits only then.
  std::optional<Millis> queued;
  bool passed_on = false;  // not an operation for a fault: forwarded as it is
  bool new_operation() const { return !answer && !passed_on; }
};

struct FrontEndConfig {
  std::string_view server = "provider";  // "provider", "proxy": the log's prefix, the 507's words
  std::optional<std::size_t> max_keys;
  bool replays_first_response = false;  // the stripe profile: the first status and body again
  std::string replay_header = "Idempotent-Replayed";
  ErrorStyle errors;
  std::function<void(const std::string&)> log;  // may be empty
  // Told the key of each job freed for room (under --max-keys), so that what the core keeps
  // per key can go with it.
  std::function<void(const std::string& key)> freeing;
};

class IdempotencyFrontEnd;
struct AdmissionStage {
  std::string_view name;
  void (IdempotencyFrontEnd::*run)(const CreateAttempt&, JournalEntry&, CreateAdmission&,
                                   Millis now);
};
// The stages, in the order they run.
const std::vector<AdmissionStage>& admission_stages();

class IdempotencyFrontEnd {
 public:
  // `jobs`, `plan` and `seed` are the core's, read and changed in place.
  IdempotencyFrontEnd(FrontEndConfig config, IdempotencyStore& jobs, FaultPlan& plan,
                      const std::uint64_t& seed);

  // Runs the stages over a create; writes its outcome (and job, and an outage's fault) into
  // `entry` when a stage answers it.
  CreateAdmission admit(const CreateAttempt& create, JournalEntry& entry, Millis now);
  // The outage stage alone, for a lookup (`for_lookup`) or a create: an answer when the
  // service is down, the slowdown when it is slow, else nothing.
  CreateAdmission ask_outage(std::string_view subject, bool for_lookup, JournalEntry& entry,
                             Millis now);

  // The queue stage alone, for a lookup or a create the outages let in: sheds it (an
  // answer), or notes how long it is queued.
  void ask_queue(JournalEntry& entry, CreateAdmission& admission, Millis now);

  // A create on its way, from its admission until its core settles it (a held request
  // commits, the upstream answers): its key is in flight, and a new operation's job has a
  // place under --max-keys (`reserves_room`).
  void begin(const std::string& key, bool reserves_room);
  void end(const std::string& key, bool reserves_room);
  // Whether one more job fits beside those reserved (the jobs of expired keys freed first).
  bool has_room(Millis now);
  void clear();  // a reset: nothing is in flight

  // The stages (admission_stages() names them).
  void outage_stage(const CreateAttempt& create, JournalEntry& entry, CreateAdmission& admission,
                    Millis now);
  void queue_stage(const CreateAttempt& create, JournalEntry& entry, CreateAdmission& admission,
                   Millis now);
  void in_flight_stage(const CreateAttempt& create, JournalEntry& entry, CreateAdmission& admission,
                       Millis now);
  void stored_stage(const CreateAttempt& create, JournalEntry& entry, CreateAdmission& admission,
                    Millis now);
  void capacity_stage(const CreateAttempt& create, JournalEntry& entry, CreateAdmission& admission,
                      Millis now);

 private:
  Decision replay_of(const JobView& stored) const;
  void log(const std::string& line) const;

  const FrontEndConfig config_;
  IdempotencyStore& jobs_;
  FaultPlan& plan_;
  const std::uint64_t& seed_;
  std::unordered_map<std::string, std::uint32_t> in_flight_;  // key -> creates on their way
  std::size_t reserved_ = 0;  // places under --max-keys held for jobs on their way
};

}  // namespace retryproof::provider
