// Which fault the next new operation (or lookup) gets. Three sources, asked in order:
// targeted rules, the FIFO script, then the chaos policy; nothing left means `none`. Before
// them all, outages: windows of time in which every request fails (or is slowed), replays too.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "provider/attempt_counts.hpp"
#include "provider/fault.hpp"
#include "provider/outage.hpp"

namespace retryproof::provider {

// {"fault": F, "key": K} or {"fault": F, "match": {"orderId": "order-42"}}, "times": N.
struct FaultRule {
  Fault fault;
  std::optional<std::string> key;
  nlohmann::json match;  // an object whose fields must all equal the payload's; null with key
  int times_left = 1;

  bool applies_to(const std::string& request_key, const nlohmann::json* payload) const;
};

// {"seed": S, "rates": {"commit-then-drop": 0.1, ...}}: the fault of the n-th new operation
// for a key is a pure function of (seed, key, n), never of the order keys arrive in.
struct ChaosPolicy {
  std::uint64_t seed = 0;
  std::vector<std::pair<Fault, double>> rates;

  Fault choose(const std::string& key, std::uint64_t n, bool for_lookup) const;
};

class FaultPlan {
 public:
  FaultPlan() = default;

  // Reads the body of POST /_test/faults (or a --plan file): {"faults": [names and rules],
  // "chaos": {...}, "outages": [...]}. Throws std::invalid_argument naming the entry and what
  // is wrong ("faults[2]: unknown fault ...", "outages[0].for: ...").
  static FaultPlan from_json(const nlohmann::json& body);
  // What POST /_test/faults makes of the plan in force: a whole plan replaces it, and
  // {"outage": {...}} (a drill) adds one outage to it, from `now` unless it says.
  static FaultPlan from_body(const nlohmann::json& body, const FaultPlan& in_force, Millis now);

  // The outages planned, in the order listed (the first whose window covers a request is the
  // one asked), with their windows on the provider's clock.
  const std::vector<Outage>& outages() const { return outages_; }
  // One more outage, after those planned: what POST /_test/faults {"outage": ...} starts.
  void add_outage(Outage outage);

  // The outage that takes a request for `subject` (its key, else its path) arriving at `at`:
  // the first whose window covers it, that takes lookups if it is one, and whose rate draws
  // it, with `seed` the provider's (see outage_draws). Counts the request as the subject's
  // next in each brownout asked. Nothing when the request is served as usual.
  std::optional<Outage> take_outage(const std::string& subject, bool for_lookup, Millis at,
                                    std::uint64_t seed);

  // The fault for the n-th (from 0) new operation with this key; consumes it.
  Fault take_for_create(const std::string& key, const nlohmann::json& payload, std::uint64_t n);

  // lookup-unavailable when one is planned for the n-th lookup of this key, else none.
  Fault take_for_lookup(const std::string& key, std::uint64_t n);

  // Whether the chaos policy draws faults for creates (or lookups): only then does the
  // n-th attempt of a key matter, and a key's count need be kept.
  bool draws_chaos(bool for_lookup) const;
  // Whether any of its sources would fail a lookup. Outages are not counted: they fail
  // lookups only as they fail every request in their window.
  bool fails_lookups() const;

  // The plan as it stands, in the shape from_json reads: rules first, then the script.
  nlohmann::json to_json() const;

 private:
  std::vector<FaultRule> rules_;
  std::deque<Fault> script_;  // FIFO: consumed one entry per new operation
  std::optional<ChaosPolicy> chaos_;
  std::vector<Outage> outages_;
  // Per outage, the requests of each key counted so far in its window, kept for a brownout
  // only (below rate 1 the n-th request of a key is drawn), and only while its window lasts.
  struct OutageCounts {
    AttemptCounts creates;
    AttemptCounts lookups;
  };
  std::vector<OutageCounts> outage_counts_;
};

}  // namespace retryproof::provider
