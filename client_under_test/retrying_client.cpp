#include "client_under_test/retrying_client.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "common/fingerprint.hpp"
#include "common/scope_exit.hpp"

namespace retryproof::client {
namespace {

// The unbounded mutant "never stops"; the harness still does, here, so that a run ends.
constexpr int kUnboundedSafetyCap = 100;
// How a definitive refusal's reason begins, in results and in the ledger: a rerun
// reports such a failure again instead of sending what the provider refused.
constexpr std::string_view kRejected = "rejected: ";

std::string describe(const TransportResponse& response) {
  return response.ok() ? std::to_string(response.status) : to_string(response.failure);
}

// The job id from a 200/201 body, or empty when the body is not a job.
std::string job_id_in(const TransportResponse& response) {
  const auto body = nlohmann::json::parse(response.body, nullptr, false);
  if (!body.is_object() || !body.contains("id") || !body["id"].is_string()) return {};
  return body["id"].get<std::string>();
}

// The provider's error code, for a reason a person can read.
std::string error_code_in(const TransportResponse& response) {
  const auto body = nlohmann::json::parse(response.body, nullptr, false);
  return body.is_object() && body.contains("error") && body["error"].is_string()
             ? body["error"].get<std::string>()
             : std::string();
}

// Retry-After in seconds (the HTTP-date form is not used by this provider).
std::optional<Millis> retry_after(const TransportResponse& response) {
  const std::string value = response.header("retry-after");
  int seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() || seconds < 0) {
    return std::nullopt;
  }
  return Millis(seconds * 1000LL);
}

}  // namespace

std::string to_string(ClientOutcome outcome) {
  switch (outcome) {
    case ClientOutcome::succeeded:
      return "succeeded";
    case ClientOutcome::failed:
      return "failed";
    case ClientOutcome::unknown:
      return "unknown";
  }
  return "unknown";
}

nlohmann::json ClientResult::outcome_line() const {
  switch (outcome) {
    case ClientOutcome::succeeded:
      return {{"outcome", "succeeded"}, {"jobId", job_id}};
    case ClientOutcome::failed:
      return {{"outcome", "failed"}, {"reason", reason}};
    case ClientOutcome::unknown:
      return {{"outcome", "unknown"}, {"idempotencyKey", idempotency_key}, {"reason", reason}};
  }
  return nullptr;
}

struct RetryingClient::Run {
  const Operation& operation;
  std::string fingerprint;
  Intent intent;
  ClientResult result;
  Millis wait{0};             // to wait before the next request
  bool final_lookup = false;  // the budget is spent: this lookup decides the report
  // A 409, or a timeout, left a request with this key possibly still being processed:
  // a later 404 then proves only that it has not committed yet.
  bool may_still_commit = false;
  int round = 1;        // of an outer loop that starts over (ClientBehaviour::rounds)
  int budget_used = 0;  // creates sent toward the budget in this run (and round)
  bool key_used_for_another_payload = false;  // by an earlier run: a found job may be its
  bool sent_unseen = false;  // a create whose outcome it could not see: it may have committed
};

RetryingClient::RetryingClient(ClientSettings settings, ClientParts parts, Mutant mutant)
    : RetryingClient(settings, parts, row_of(mutant).behaviour) {}

RetryingClient::RetryingClient(ClientSettings settings, ClientParts parts,
                               ClientBehaviour behaviour)
    : settings_(settings), parts_(parts), behaviour_(behaviour) {
  if (settings_.attempts < 1) throw std::invalid_argument("attempts must be at least 1");
  if (settings_.base_delay < Millis(2)) {
    throw std::invalid_argument(
        "the base delay must be at least 2ms, so that half of it is a floor");
  }
  if (settings_.max_delay < settings_.base_delay) {
    throw std::invalid_argument("the max delay must not be shorter than the base delay");
  }
  if (settings_.timeout < Millis(1)) throw std::invalid_argument("the timeout must be positive");
}

ClientResult RetryingClient::run(const Operation& operation) {
  Run run{operation, retryproof::fingerprint(operation.payload)};
  Next next = plan(run);
  while (next != Next::done)
    next = next == Next::attempt ? attempt(run) : reconcile(run);
  run.result.idempotency_key = run.intent.idempotency_key;
  return run.result;
}

IntentLedger& RetryingClient::ledger() {
  return behaviour_.durable_intent ? parts_.ledger : memory_only_;
}

RetryingClient::Next RetryingClient::plan(Run& run) {
  const auto earlier = ledger().find(run.operation.operation_id);
  // An intent for another payload, or one that ran out of budget without committing, is
  // no answer for this run: it starts afresh, with the same key.
  const bool stale =
      earlier &&
      (earlier->payload_fingerprint != run.fingerprint ||
       (earlier->status == IntentStatus::failed && !earlier->reason.starts_with(kRejected)));
  // The key stays the operation's; if an earlier run sent it with another payload, a job
  // the provider holds for it may be that payload's, and a lookup cannot tell.
  run.key_used_for_another_payload =
      earlier && earlier->payload_fingerprint != run.fingerprint && earlier->attempts > 0;
  if (earlier && !stale) {
    run.intent = *earlier;
    Step note{.attempt = earlier->attempts,
              .at = parts_.clock.now(),
              .request = "(intent ledger)",
              .key = earlier->idempotency_key,
              .result = to_string(earlier->status)};
    switch (earlier->status) {
      case IntentStatus::confirmed:
        note.decision = "confirmed by an earlier run: report it, send nothing";
        record(run, note);
        run.result.outcome = ClientOutcome::succeeded;
        run.result.job_id = earlier->job_id;
        return Next::done;
      case IntentStatus::failed:
        note.decision = "refused in an earlier run: report it, send nothing";
        record(run, note);
        run.result.outcome = ClientOutcome::failed;
        run.result.reason = earlier->reason;
        return Next::done;
      case IntentStatus::planned:
      case IntentStatus::sent:
      case IntentStatus::unknown:
        note.decision = "an earlier run did not finish: look the key up before sending anything";
        record(run, note);
        run.may_still_commit = earlier->attempts > 0;  // its request may still be in flight
        return Next::reconcile;
    }
  }
  // The key is derived once, before the first attempt, from the business identity. A
  // per-process key is minted from the time the process started instead (a fresh UUID
  // would do the same harm, but would not replay from a seed).
  const std::string key =
      earlier ? earlier->idempotency_key
      : behaviour_.key == KeyScheme::per_process
          ? run.operation.operation_id + ":" + std::to_string(parts_.clock.now().count())
          : run.operation.operation_id;
  run.intent = Intent{.operation_id = run.operation.operation_id,
                      .idempotency_key = key,
                      .payload_fingerprint = run.fingerprint};
  ledger().save(run.intent);
  return Next::attempt;
}

RetryingClient::Next RetryingClient::attempt(Run& run) {
  if (run.wait > Millis(0)) parts_.sleeper.sleep(run.wait);
  run.wait = Millis(0);
  if (!budget_left(run)) {
    run.final_lookup = true;  // a 5xx can come after a commit: never report failed on a guess
    return Next::reconcile;
  }
  if (const auto why = instance_withholds(run, true)) return withheld(run, *why);
  Step step;
  const TransportResponse response = send_create(run, step);
  const int status = response.ok() ? response.status : 0;
  const bool committed = status == 200 || status == 201;
  if (committed && !job_id_in(response).empty()) {
    step.classification = "confirmed";
    step.decision = "done";
    record(run, step);
    return confirm(run, job_id_in(response));
  }
  const bool retry_4xx = behaviour_.retries_definitive && (status == 400 || status == 422);
  if (status == 503 || status == 429 || status == 409 || retry_4xx ||
      response.failure == TransportFailure::not_sent) {
    return retry_same_key(run, step, response);
  }
  if (status >= 400 && status < 500) {
    step.classification = "definitive";
    step.decision = "stop: the provider refused the request; no retry";
    record(run, step);
    const std::string code = error_code_in(response);
    return give_up(
        run, ClientOutcome::failed,
        std::string(kRejected) + std::to_string(status) + (code.empty() ? "" : " " + code));
  }
  // Timeout, closed or reset connection, truncated body, 500: it may have committed.
  return after_unseen_outcome(run, step, response);
}

// One more attempt counted, its key (a fresh one for a per-attempt mutant) and intent saved
// durably before the request leaves, then the create sent; `step` describes it.
TransportResponse RetryingClient::send_create(Run& run, Step& step) {
  ++run.intent.attempts;
  ++run.result.attempts;
  ++run.budget_used;
  if (behaviour_.key == KeyScheme::per_attempt) {
    run.intent.idempotency_key =
        run.operation.operation_id + ":attempt-" + std::to_string(run.intent.attempts);
  }
  nlohmann::json payload = run.operation.payload;
  if (!behaviour_.keeps_payload && run.result.attempts > 1) {
    payload["attemptAt"] = parts_.clock.now().count();
  }
  // The breaker admitted this create: it must hear how it ended, or a probe that never got
  // its answer (the ledger or the transport threw, the client was killed) would hold it
  // half-open, refusing every create, for good. Not answered is failed.
  bool told = false;
  const ScopeExit untold([&] {
    if (!told) tell_breaker(TransportResponse{.failure = TransportFailure::not_sent});
  });
  run.intent.status = IntentStatus::sent;
  ledger().save(run.intent);  // durable before the request leaves

  step = Step{.attempt = run.intent.attempts,
              .at = parts_.clock.now(),
              .request = "POST /jobs",
              .key = run.intent.idempotency_key};
  TransportResponse response =
      parts_.transport.send({.method = "POST",
                             .path = "/jobs",
                             .headers = {{"Idempotency-Key", run.intent.idempotency_key},
                                         {"Content-Type", "application/json"}},
                             .body = payload.dump(),
                             .timeout = settings_.timeout});
  tell_breaker(response);
  told = true;
  step.result = describe(response);
  return response;
}

// Proven not committed by this try (or, for 409, still being decided by the first): the
// same key again, after a wait.
RetryingClient::Next RetryingClient::retry_same_key(Run& run, Step& step,
                                                    const TransportResponse& response) {
  const int status = response.ok() ? response.status : 0;
  step.classification = status == 429 ? "rate-limited" : status == 409 ? "in-flight" : "retryable";
  run.may_still_commit |= status == 409;
  run.wait = backoff(run.intent.attempts);
  if (status == 429 && behaviour_.honours_retry_after) {
    // Never sooner than Retry-After, and up to a quarter later: a fleet told to come back
    // in a second would otherwise come back in the same millisecond.
    const Millis told = retry_after(response).value_or(Millis(0));
    const auto spread = behaviour_.jitters
                            ? static_cast<Millis::rep>(parts_.random.uniform() *
                                                       static_cast<double>(told.count() / 4))
                            : 0;
    run.wait = std::max(run.wait, told + Millis(spread));
  }
  step.wait = run.wait;
  step.decision = budget_left(run) ? "wait, then retry with the same key"
                                   : "budget spent: look the key up to decide";
  record(run, step);
  return Next::attempt;
}

// No answer that says whether it committed: what the client's behaviour does about it.
RetryingClient::Next RetryingClient::after_unseen_outcome(Run& run, Step& step,
                                                          const TransportResponse& response) {
  step.classification = "ambiguous";
  run.may_still_commit |= response.failure == TransportFailure::timeout;
  run.sent_unseen = true;
  if (behaviour_.on_hidden == OnHiddenOutcome::report_failed) {
    step.decision = "stop: treat the unseen outcome as a failure";
    record(run, step);
    return give_up(run, ClientOutcome::failed, "no response: " + step.result);
  }
  if (behaviour_.on_hidden == OnHiddenOutcome::resend) {
    run.wait = backoff(run.intent.attempts);
    step.wait = run.wait;
    step.decision = "send it again";
    record(run, step);
    return Next::attempt;
  }
  step.decision = "do not send again: look the key up first";
  record(run, step);
  return Next::reconcile;
}

RetryingClient::Next RetryingClient::reconcile(Run& run) {
  if (const auto why = instance_withholds(run, false)) return withheld(run, *why);
  Step step{.attempt = run.intent.attempts,
            .at = parts_.clock.now(),
            .request = "GET /jobs/by-idempotency-key/" + percent_encode(run.intent.idempotency_key),
            .key = run.intent.idempotency_key};
  const TransportResponse response = parts_.transport.send(
      {.method = "GET", .path = step.request.substr(4), .timeout = settings_.timeout});
  step.result = describe(response);

  if (response.ok() && response.status == 200 && !job_id_in(response).empty()) {
    step.classification = "found";
    if (run.key_used_for_another_payload) {
      step.decision = "stop: fail closed, the job may be the one an earlier payload created";
      record(run, step);
      return give_up(run, ClientOutcome::unknown,
                     "the provider holds " + job_id_in(response) +
                         " for this key, which an earlier run sent with another payload");
    }
    step.decision = "done: the provider holds the job";
    record(run, step);
    return confirm(run, job_id_in(response));
  }
  if (response.ok() && response.status == 404) {
    step.classification = "not-found";
    if (!run.final_lookup && budget_left(run)) {
      run.wait = backoff(run.intent.attempts);
      step.wait = run.wait;
      step.decision = "never committed: resubmit with the same key";
      record(run, step);
      return Next::attempt;
    }
    if (run.may_still_commit) {
      step.decision = "stop: fail closed, a request with this key may still commit";
      record(run, step);
      return give_up(run, ClientOutcome::unknown,
                     "a request with this key may still be in flight: the budget ran out first");
    }
    step.decision = "stop: never committed, and the budget is spent";
    record(run, step);
    return give_up(run, ClientOutcome::failed,
                   "not committed after " + std::to_string(run.intent.attempts) + " attempts");
  }
  step.classification = "lookup-failed";
  step.decision = "stop: fail closed, the outcome cannot be proven";
  record(run, step);
  return give_up(run, ClientOutcome::unknown, "lookup failed: " + step.result);
}

RetryingClient::Next RetryingClient::give_up(Run& run, ClientOutcome outcome,
                                             const std::string& reason) {
  if (run.round < behaviour_.rounds) {
    // The bug: an outer loop that treats the inner loop's failure as final for the key,
    // and starts over under a new one.
    ++run.round;
    run.intent.idempotency_key = run.operation.operation_id + ":round-" + std::to_string(run.round);
    run.intent.attempts = 0;
    run.budget_used = 0;
    run.intent.status = IntentStatus::planned;
    run.final_lookup = false;
    run.wait = backoff(1);
    ledger().save(run.intent);
    return Next::attempt;
  }
  run.intent.status =
      outcome == ClientOutcome::failed ? IntentStatus::failed : IntentStatus::unknown;
  run.intent.reason = reason;
  ledger().save(run.intent);
  run.result.outcome = outcome;
  run.result.reason = reason;
  return Next::done;
}

RetryingClient::Next RetryingClient::confirm(Run& run, const std::string& job_id) {
  run.intent.status = IntentStatus::confirmed;
  run.intent.job_id = job_id;
  ledger().save(run.intent);
  run.result.outcome = ClientOutcome::succeeded;
  run.result.job_id = job_id;
  return Next::done;
}

// The instance withholds the next request: its budget is spent (for a retry, or a lookup after
// an outcome it could not see: either is load on a service that is failing), or its breaker is
// open (for a create). What the run sent either proved nothing committed, and the operation
// failed; or it may have committed, and the outcome is unknown — its intent stays in the ledger
// for a later run to look up. Never failed on a guess.
RetryingClient::Next RetryingClient::withheld(Run& run, const std::string& why) {
  if (run.intent.attempts == 0 && !run.may_still_commit)
    return give_up(run, ClientOutcome::failed, why + ": nothing was sent");
  const std::string after = why + " after " + std::to_string(run.intent.attempts) + " attempts";
  if (!run.may_still_commit && !run.sent_unseen)
    return give_up(run, ClientOutcome::failed, after + ": nothing it sent committed");
  return give_up(run, ClientOutcome::unknown, after + ": a request may have committed");
}

// What each of the instance's guards says in a run's history when it withholds a request.
struct GuardRefusal {
  const char* request;
  const char* result;
  const char* decision;
  const char* why;  // the reason an outcome gives
};

namespace {

constexpr GuardRefusal kBudgetSpent{"(retry budget)", "spent",
                                    "no retry: its instance's retry budget is spent",
                                    "its instance's retry budget is spent"};
constexpr GuardRefusal kCircuitOpen{"(circuit breaker)", "open",
                                    "no create: its instance's circuit is open",
                                    "its instance's circuit is open"};

}  // namespace

std::string RetryingClient::refused(Run& run, const GuardRefusal& refusal) {
  record(run, Step{.attempt = run.intent.attempts,
                   .at = parts_.clock.now(),
                   .request = refusal.request,
                   .key = run.intent.idempotency_key,
                   .result = refusal.result,
                   .decision = refusal.decision});
  return refusal.why;
}

// Why the instance withholds this request, if it does. A create needs the breaker's leave
// first; then a first request fills the instance's budget a little, and each later one needs
// a whole token: only a request that will be sent touches the budget, as retry-budget and the
// replays count it. A probe the budget withholds goes back to the breaker, or it stays out.
std::optional<std::string> RetryingClient::instance_withholds(Run& run, bool create) {
  const bool guarded = create && parts_.breaker && behaviour_.uses_breaker;
  const Admission admission = guarded ? parts_.breaker->admit(parts_.clock.now()) : Admission::send;
  if (admission == Admission::refuse) return refused(run, kCircuitOpen);
  if (!parts_.budget || !behaviour_.uses_budget) return std::nullopt;
  if (run.budget_used == 0) {
    parts_.budget->deposit();
  } else if (!parts_.budget->withdraw()) {
    if (admission == Admission::probe) parts_.breaker->release_probe();
    return refused(run, kBudgetSpent);
  }
  return std::nullopt;
}

// A create's answer, for the breaker: a 5xx, a 429 or no answer is the service failing.
void RetryingClient::tell_breaker(const TransportResponse& response) {
  if (!parts_.breaker || !behaviour_.uses_breaker) return;
  const bool failed = !response.ok() || response.status >= 500 || response.status == 429;
  parts_.breaker->record(failed ? Answered::failed : Answered::served, parts_.clock.now());
}

// The budget is per run, as the harness counts it: a restart is a new decision to carry the
// operation out (its intent still says how many attempts came before).
bool RetryingClient::budget_left(const Run& run) const {
  const int budget = behaviour_.bounded ? settings_.attempts : kUnboundedSafetyCap;
  return run.budget_used < budget;
}

Millis RetryingClient::backoff(int attempts_made) {
  if (!behaviour_.backs_off) return Millis(0);
  // Exponential and capped; half of each step fixed and half random, so no retry is
  // immediate and a fleet of clients does not retry in lockstep.
  const int exponent = std::clamp(attempts_made - 1, 0, 30);
  const Millis step = std::min(settings_.max_delay,
                               Millis(settings_.base_delay.count() * (Millis::rep{1} << exponent)));
  if (!behaviour_.jitters) return step;
  const auto jitter =
      static_cast<Millis::rep>(parts_.random.uniform() * static_cast<double>(step.count() / 2));
  return step / 2 + Millis(jitter);
}

void RetryingClient::record(Run& run, Step step) {
  run.result.history.push_back(std::move(step));
}

}  // namespace retryproof::client
