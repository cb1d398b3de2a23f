// Which fault the next new operation (or lookup) gets. Three sources, asked in order:
// targeted rules, the FIFO script, then the chaos policy; nothing left means `none`. Before
// them all, outages: windows of time in which every request fails (or is slowed), replays too.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "provider/attempt_counts.hpp"
#include "provider/capacity.hpp"
#include "provider/fault.hpp"
#include "provider/outage.hpp"

namespace retryproof::provider {

// {"fault": F, "key": K} or {"fault": F, "match": {"orderId": "order-42"}}, "times": N.
struct FaultRule {
  Fault fault;
  std::optional<std::string> key;
  nlohmann::json match;  // an object whose fields must all equal the payload's; null with key
  int times_left = 1;
  std::size_t use = 0;  // its entry in the plan's uses

  bool applies_to(const std::string& request_key, const nlohmann::json* payload) const;
};

// How one planned source of faults fared since the plan was installed: what the reports and
// GET /_test/faults show, and what tells a run that never met the fault it was planned for
// (it is then inconclusive, unless the plan marks the source optional).
struct PlanUse {
  std::string source;     // where the plan says it: "faults[0]", "chaos", "outages[1]"
  std::string fault;      // "commit-then-drop"; chaos: its faults, by rate; an outage: its fault
  std::string target;     // "orderId=order-999", "key K", or empty: the next one it is asked for
  std::string asked_for;  // what it is compared with: "create", "lookup" or "request"
  int fired = 0;          // requests it answered
  int compared = 0;       // requests it was asked for while it could fire
  bool optional = false;  // "optional": true, a source a run need not meet
  // An outage's lookups, apart: it exists for the creates it fails, so `fired` and
  // `compared` count creates, and a run whose outage only lookups met never tried one.
  int lookups_fired = 0;
  // A match rule's fields that no compared create carried, each with the field a create did
  // carry that is closest to it ("orderID", "orderId"), or empty when none is.
  std::vector<std::pair<std::string, std::string>> unseen_fields = {};

  // "commit-then-drop was planned for orderId=order-999 and fired 0 times in 1 create"
  std::string describe() const;
};

// What the plan answered a request with, and the source that did it (empty when nothing
// planned fired): the journal's `planned`.
struct PlannedFault {
  Fault fault;
  std::string source;
};
struct PlannedOutage {
  Outage outage;
  std::string source;
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
  std::optional<PlannedOutage> take_outage(const std::string& subject, bool for_lookup, Millis at,
                                           std::uint64_t seed);

  // What the plan's capacity makes of a request arriving at `at` that the outages let in;
  // nothing when the plan gives the provider no capacity (it serves everything at once).
  std::optional<Queued> take_queue(Millis at);
  const std::optional<CapacityQueue>& capacity() const { return capacity_; }

  // The fault for the n-th (from 0) new operation with this key; consumes it.
  PlannedFault take_for_create(const std::string& key, const nlohmann::json& payload,
                               std::uint64_t n);

  // lookup-unavailable when one is planned for the n-th lookup of this key, else none.
  PlannedFault take_for_lookup(const std::string& key, std::uint64_t n);

  // Every source the plan was installed with, in its order (faults, chaos, outages), each
  // with its counts so far; spent and consumed ones too.
  std::vector<PlanUse> uses() const;

  // Whether the chaos policy draws faults for creates (or lookups): only then does the
  // n-th attempt of a key matter, and a key's count need be kept.
  bool draws_chaos(bool for_lookup) const;
  // Whether any of its sources would fail a lookup. Outages are not counted: they fail
  // lookups only as they fail every request in their window.
  bool fails_lookups() const;

  // The plan as it stands, in the shape from_json reads: rules first, then the script.
  nlohmann::json to_json() const;
  // uses() as GET /_test/faults shows them beside the plan, under "fired" (which from_json
  // reads past, so that a plan read back can be posted again): [{"source", "fault",
  // "target", "askedFor", "fired", "compared", "optional", "unseenFields": [{"field",
  // "didYouMean"}], "text"}].
  nlohmann::json uses_json() const;
  // What GET /_test/faults answers: to_json() with "fired" beside it.
  nlohmann::json shown_json() const;

 private:
  struct ScriptedFault {
    Fault fault;
    std::size_t use;
  };
  // Counts one compared create's payload for the match rules (the fields they name that it
  // carried), and the names it carried, for a "did you mean" on a field none carried.
  void note_compared(const nlohmann::json& payload);
  PlannedFault fired(std::size_t use, Fault fault);
  PlannedFault draw_chaos(const std::string& key, std::uint64_t n, bool for_lookup);

  std::vector<PlanUse> uses_;
  std::vector<FaultRule> rules_;
  std::deque<ScriptedFault> script_;  // FIFO: consumed one entry per new operation
  std::optional<ChaosPolicy> chaos_;
  std::size_t chaos_use_ = 0;
  std::vector<Outage> outages_;
  std::vector<std::size_t> outage_uses_;
  std::optional<CapacityQueue> capacity_;
  std::size_t capacity_use_ = 0;
  // Per match rule (by its use), how many compared creates carried each field it names.
  std::map<std::size_t, std::map<std::string, int>> carried_;
  std::set<std::string> fields_seen_;  // top-level names compared creates carried, bounded
  // Per outage, the requests of each key counted so far in its window, kept for a brownout
  // only (below rate 1 the n-th request of a key is drawn), and only while its window lasts.
  struct OutageCounts {
    AttemptCounts creates;
    AttemptCounts lookups;
  };
  std::vector<OutageCounts> outage_counts_;
};

}  // namespace retryproof::provider
