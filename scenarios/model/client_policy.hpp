// What a client declares about itself, and so what the verdicts judge it by. A client under
// test need not behave like the reference client: urllib3's Retry(total=3) makes four
// requests by design, cockatiel's default jitter has no floor, the Stripe SDK re-sends the
// same key after a dropped connection instead of looking it up. The user declares that
// (`--client-policy attempts=4,min-backoff=0ms,on-ambiguous=same-key-retry`, or a
// `clientPolicy` block in a scenario), and budgets, backoff floors and the rule after an
// ambiguous outcome follow the declaration. Without one, a client is judged by the
// scenario's settings, which it is given in RETRYPROOF_CLIENT.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "client_under_test/circuit_breaker.hpp"
#include "common/json_node.hpp"
#include "common/millis.hpp"

namespace retryproof::scenarios {

struct Scenario;

// What a client does after an outcome it could not see (no response, a partial one, a
// 500, or none within its timeout).
enum class OnAmbiguous {
  lookup_first,    // asks the provider by key before sending anything again (the default)
  same_key_retry,  // re-sends the same key and payload: safe where the provider enforces keys
};

std::string to_string(OnAmbiguous policy);

struct ClientPolicy {
  std::optional<int> attempts;        // most creates per operation per invocation
  std::optional<Millis> min_backoff;  // the shortest wait it promises between attempts
  std::optional<Millis> max_backoff;  // the longest wait between its attempts (its cap)
  std::optional<Millis> timeout;      // how long it waits for an answer
  std::optional<OnAmbiguous> on_ambiguous;
  std::optional<bool> follows_settings;  // it honours RETRYPROOF_CLIENT
  // It sends the operation's payload as its create's body (payload=verbatim), rather than
  // mapping it to its API's own body as an SDK does (payload=mapped, the default).
  std::optional<bool> payload_verbatim;
  // retry-budget=10%: its retries are at most this share of its requests (0.1), whatever
  // its attempts; what load-amplification then allows a fleet in an outage.
  std::optional<double> retry_budget;
  // retry-budget=20%/100: a full bucket holds this many retries (else kRetryBudgetBurst).
  std::optional<double> retry_burst;
  // breaker=5/2s: each instance keeps a circuit breaker that opens after 5 failed creates in a
  // row and lets a probe through every 2 s while open; stopping then judges that in a long
  // outage an instance sends its probes and no more.
  std::optional<client::BreakerSettings> breaker;
  // jitter-after-retry-after: it adds jitter on top of a 429's Retry-After, so that a fleet
  // the provider told to wait alike does not return alike; only then is a wave a uniform
  // Retry-After ordered its fault (RFC 9110 asks a client to wait Retry-After, nothing more).
  std::optional<bool> jitter_after_retry_after;

  // This declaration, with `base` filling in what it does not say.
  ClientPolicy over(const ClientPolicy& base) const;
  // "attempts=4,min-backoff=500ms,on-ambiguous=same-key-retry" (what is set, in that order).
  std::string describe() const;

  friend bool operator==(const ClientPolicy&, const ClientPolicy&) = default;
};

// The command-line form: comma-separated key=value pairs (payload=verbatim|mapped and
// retry-budget=P% among them), `follows-settings` alone meaning
// follows-settings=yes. Throws std::invalid_argument naming the key or value that is wrong
// and what is accepted.
ClientPolicy parse_client_policy(std::string_view text);

// A scenario's "clientPolicy" block: {"attempts", "minBackoff", "timeout", "onAmbiguous",
// "followsSettings", "payload", "retryBudget", "breaker", "maxBackoff", "jitterAfterRetryAfter"}.
// Throws FormatError with the JSON path.
ClientPolicy client_policy_from(const JsonNode& node);

// The numbers a run is judged by, each with the place it came from, for messages.
// The backoff floor of a client that neither declares one (min-backoff) nor follows the
// scenario's settings: the catalog's own, half its 100 ms base step, in every scenario. A
// storm's longer steps are given to clients in RETRYPROOF_CLIENT; a client that ignores them
// is not judged by them.
inline constexpr Millis kUndeclaredFloor{50};

// A declared retry budget may begin with this many retries' worth per instance (a full
// bucket), as the reference client's does (client::kDefaultRetryBurst), unless it declares
// another (retry-budget=20%/100).
inline constexpr double kRetryBudgetBurst = 10;

struct JudgedPolicy {
  int attempts = 3;
  Millis min_backoff{50};
  Millis max_backoff{1000};  // declared, or the scenario's client.maxDelay
  Millis timeout{1000};
  OnAmbiguous on_ambiguous = OnAmbiguous::lookup_first;
  bool follows_settings = false;
  bool payload_verbatim = false;   // the wire body must then be the operation's payload
  bool declared_attempts = false;  // false: the scenario's client.attempts
  bool declared_min_backoff = false;
  bool declared_timeout = false;
  bool declared_on_ambiguous = false;
  std::optional<double> retry_budget;  // declared only
  double retry_burst = 10;             // the retries a full bucket holds (declared, or 10)
  std::optional<client::BreakerSettings> breaker;  // declared only
  bool jitter_after_retry_after = false;
  // For messages: where the numbers not declared come from, a scenario's settings (run,
  // explore) or, for traffic judged alone (judge, GET /_test/verdicts), retryproof's
  // defaults; and the caller's word for a declaration: "--client-policy " on the command
  // line, "policy=" for GET /_test/verdicts and the embed helpers' verdicts(policy=...).
  bool from_scenario = true;
  std::string declare_with = "--client-policy ";

  // "3 (the scenario's client.attempts; declare another with --client-policy attempts=N)"
  std::string attempts_text() const;
  std::string min_backoff_text() const;
};

// The declaration over the scenario's settings (a scenario's own clientPolicy under the
// user's).
JudgedPolicy judged_policy(const Scenario& scenario, const ClientPolicy& declared);

}  // namespace retryproof::scenarios
