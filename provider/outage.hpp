// An outage: a window of scenario time (the provider's clock) in which the service fails, or
// slows, every data-plane request that arrives — replays and lookups too, because a service
// that is down cannot read its idempotency store either. Plans list them under "outages";
// the fleet verdicts read the windows back from a scenario's plan with FaultPlan::outages().
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/millis.hpp"
#include "provider/fault.hpp"

namespace retryproof::provider {

struct Outage {
  Millis from{0};
  Millis until{0};  // exclusive: a request arriving at `until` is served as usual
  // What a request the outage takes is answered: a fault that never commits (503, 429, a
  // drop, a reset). `none` for a slowdown.
  Fault fault;
  // A slowdown instead: each request it takes is held this long, then served as usual (a new
  // operation commits only after the hold).
  std::optional<Millis> slowdown;
  double rate = 1.0;      // the share of requests it takes: below 1, a brownout
  bool lookups = true;    // whether it takes lookups as well as creates
  bool optional = false;  // a run need not meet it (else a run it took nothing of is inconclusive)

  bool covers(Millis at) const { return at >= from && at < until; }
  // As a plan writes it: "fail-before-commit", "rate-limited:3", "slowdown:2s".
  std::string fault_name() const;

  friend bool operator==(const Outage&, const Outage&) = default;
};

// What an outage's "fault" may be: "fail-before-commit, ..., slowdown:<duration>".
std::string outage_fault_names();

// Reads one entry of "outages": {"from": "1s", "for": "5s", "fault": F, "rate": R, "lookups":
// B}. `from` may be left out only when `starts` is given (an outage started now, from the
// control plane). Throws std::invalid_argument naming `where` and the field
// ("outages[0].for: ...").
Outage parse_outage(const nlohmann::json& entry, const std::string& where,
                    std::optional<Millis> starts = std::nullopt);

// The entry as parse_outage reads it, `rate` and `lookups` always written.
nlohmann::json to_json(const Outage& outage);

// Whether outage number `index` of a plan takes the `n`-th request (from 0) of `subject` (a
// key, else the request's path) that arrives in its window: always at a rate of 1, else a
// pure function of (seed, index, subject, n, whether it is a lookup), so a brownout replays
// from its seed whatever order other keys arrive in.
bool outage_draws(const Outage& outage, std::uint64_t seed, std::size_t index,
                  const std::string& subject, std::uint64_t n, bool for_lookup);

}  // namespace retryproof::provider
