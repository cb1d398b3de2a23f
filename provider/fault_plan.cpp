#include "provider/fault_plan.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "common/json_fields.hpp"
#include "common/json_text.hpp"
#include "common/splitmix64.hpp"
#include "common/stable_hash.hpp"
#include "common/suggest.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

// The most keys a brownout counts requests of at once; past it, the key counted longest ago
// draws again as if new. A long brownout of a live service must not grow without bound.
constexpr std::size_t kKeysCountedPerOutage = 100'000;
// The most payload field names kept to suggest a match rule's mistyped field from.
constexpr std::size_t kFieldNamesKept = 256;

std::string rate_text(double rate) {
  std::string text = std::to_string(rate);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

bool is_lookup_fault(const Fault& fault) {
  return row_of(fault.kind).target == FaultTarget::lookup;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where + ": " + what);
}

bool optional_at(const json& entry, const std::string& where) {
  if (!entry.contains("optional")) return false;
  if (!entry["optional"].is_boolean()) fail(where + ".optional", "expected true or false");
  return entry["optional"].get<bool>();
}

Fault parse_fault_at(const json& value, const std::string& where) {
  if (!value.is_string()) fail(where, "expected a fault name such as \"commit-then-drop\"");
  try {
    return parse_fault(value.get<std::string>());
  } catch (const std::invalid_argument& error) {
    fail(where, error.what());
  }
}

FaultRule parse_rule(const json& entry, const std::string& where) {
  refuse_unknown_fields(entry, where, {"fault", "key", "match", "times", "optional"});
  if (!entry.contains("fault")) fail(where, "a rule needs a \"fault\"");
  FaultRule rule{parse_fault_at(entry["fault"], where + ".fault")};
  if (entry.contains("key") == entry.contains("match")) {
    fail(where,
         "a rule names either a \"key\" or a \"match\" (a plain entry is just the fault name)");
  }
  if (entry.contains("key")) {
    if (!entry["key"].is_string() || entry["key"].get_ref<const std::string&>().empty()) {
      fail(where + ".key", "expected a non-empty string");
    }
    rule.key = entry["key"].get<std::string>();
  } else {
    if (!entry["match"].is_object() || entry["match"].empty()) {
      fail(where + ".match",
           "expected an object of payload fields, such as {\"orderId\": \"order-42\"}");
    }
    if (is_lookup_fault(rule.fault)) {
      fail(where, "a lookup-unavailable rule names a \"key\": lookups carry no payload to match");
    }
    rule.match = entry["match"];
  }
  if (entry.contains("times")) {
    if (!entry["times"].is_number_integer() || entry["times"].get<std::int64_t>() < 1 ||
        entry["times"].get<std::int64_t>() > 1'000'000) {
      fail(where + ".times", "expected a whole number from 1 to 1000000");
    }
    rule.times_left = entry["times"].get<int>();
  }
  return rule;
}

// A plain entry of "faults", for the next new operation (or lookup): a fault name, or
// {"fault": F, "optional": true}.
std::pair<Fault, bool> parse_scripted(const json& entry, const std::string& where) {
  if (!entry.is_object()) return {parse_fault_at(entry, where), false};
  refuse_unknown_fields(entry, where, {"fault", "optional"});
  if (!entry.contains("fault")) fail(where, "an entry needs a \"fault\"");
  return {parse_fault_at(entry["fault"], where + ".fault"), optional_at(entry, where)};
}

bool is_rule(const json& entry) {
  return entry.is_object() &&
         (entry.contains("key") || entry.contains("match") || entry.contains("times"));
}

// "orderId=order-42, region=eu": what a match rule asks of a payload, in words.
std::string match_text(const json& match) {
  std::string text;
  for (const auto& [field, value] : match.items()) {
    text += (text.empty() ? "" : ", ") + field + "=" +
            (value.is_string() ? value.get<std::string>() : compact_json(value));
  }
  return text;
}

std::string rates_text(const ChaosPolicy& chaos) {
  std::string text;
  for (const auto& [fault, rate] : chaos.rates)
    text += (text.empty() ? "" : ", ") + to_string(fault) + " at " + compact_json(json(rate));
  return text;
}

std::string times_text(int count, const std::string& what) {
  return std::to_string(count) + " " + what + (count == 1 ? "" : "s");
}

ChaosPolicy parse_chaos(const json& chaos) {
  const std::string where = "chaos";
  if (!chaos.is_object()) fail(where, "expected {\"seed\": S, \"rates\": {\"fault\": rate, ...}}");
  refuse_unknown_fields(chaos, where, {"seed", "rates", "optional"});
  ChaosPolicy policy;
  if (chaos.contains("seed")) {
    if (!chaos["seed"].is_number_unsigned())
      fail(where + ".seed", "expected a non-negative integer");
    policy.seed = chaos["seed"].get<std::uint64_t>();
  }
  if (!chaos.contains("rates") || !chaos["rates"].is_object()) {
    fail(where + ".rates", "expected an object of fault names and rates between 0 and 1");
  }
  // Keyed by the canonical name: two spellings of one fault ("commit-then-delay:60s" and
  // ":1m") are one entry, and the draw walks the rates in an order the echo keeps.
  std::map<std::string, std::pair<Fault, double>> by_name;
  double create_total = 0;
  for (const auto& [name, rate] : chaos["rates"].items()) {
    const std::string at = where + ".rates." + name;
    const Fault fault = parse_fault_at(json(name), at);
    if (!rate.is_number() || rate.get<double>() < 0 || rate.get<double>() > 1) {
      fail(at, "expected a rate between 0 and 1");
    }
    if (!by_name.emplace(to_string(fault), std::pair(fault, rate.get<double>())).second) {
      fail(at, "the same fault as another rate, \"" + to_string(fault) + "\"; give it one rate");
    }
    if (!is_lookup_fault(fault)) create_total += rate.get<double>();
  }
  for (const auto& [name, fault_and_rate] : by_name)
    policy.rates.push_back(fault_and_rate);
  if (create_total > 1.0 + 1e-9) {
    fail(where + ".rates", "the rates of faults for new operations add up to more than 1");
  }
  return policy;
}

}  // namespace

bool FaultRule::applies_to(const std::string& request_key, const json* payload) const {
  if (times_left <= 0) return false;
  if (key) return *key == request_key;
  if (payload == nullptr) return false;
  return std::all_of(match.items().begin(), match.items().end(), [&](const auto& field) {
    const auto found = payload->find(field.key());
    return found != payload->end() && *found == field.value();
  });
}

Fault ChaosPolicy::choose(const std::string& key, std::uint64_t n, bool for_lookup) const {
  SplitMix64 random(seed ^ stable_hash(key) ^ (n * 0x9e3779b97f4a7c15ULL) ^
                    (for_lookup ? 0x5bd1e995ULL : 0));
  const double draw = static_cast<double>(random.next() >> 11) * 0x1.0p-53;  // uniform [0, 1)
  double cumulative = 0;
  for (const auto& [fault, rate] : rates) {
    if (is_lookup_fault(fault) != for_lookup) continue;
    cumulative += rate;
    if (draw < cumulative) return fault;
  }
  return Fault{};
}

FaultPlan FaultPlan::from_json(const json& body) {
  if (!body.is_object()) throw std::invalid_argument("the plan must be a JSON object");
  // "fired" is what GET /_test/faults adds to a plan; a plan posted back as it was read is
  // read past it, and starts its counts afresh.
  refuse_unknown_fields(body, "plan", {"faults", "chaos", "outages", "capacity", "fired"});
  FaultPlan plan;
  if (body.contains("faults")) {
    const json& faults = body["faults"];
    if (!faults.is_array()) fail("faults", "expected an array of fault names and rules");
    for (std::size_t i = 0; i < faults.size(); ++i) {
      const std::string where = "faults[" + std::to_string(i) + "]";
      PlanUse use{.source = where};
      if (is_rule(faults[i])) {
        FaultRule rule = parse_rule(faults[i], where);
        use.fault = to_string(rule.fault);
        use.target = rule.key ? "key " + *rule.key : match_text(rule.match);
        use.asked_for = is_lookup_fault(rule.fault) ? "lookup" : "create";
        use.optional = optional_at(faults[i], where);
        rule.use = plan.uses_.size();
        plan.rules_.push_back(std::move(rule));
      } else {
        const auto [fault, optional] = parse_scripted(faults[i], where);
        use.fault = to_string(fault);
        use.asked_for = is_lookup_fault(fault) ? "lookup" : "create";
        use.optional = optional;
        plan.script_.push_back({fault, plan.uses_.size()});
      }
      plan.uses_.push_back(std::move(use));
    }
  }
  if (body.contains("chaos")) {
    plan.chaos_ = parse_chaos(body["chaos"]);
    plan.chaos_use_ = plan.uses_.size();
    plan.uses_.push_back({.source = "chaos",
                          .fault = "chaos (" + rates_text(*plan.chaos_) + ")",
                          .asked_for = plan.draws_chaos(false) ? "create" : "lookup",
                          .optional = optional_at(body["chaos"], "chaos")});
  }
  if (body.contains("outages")) {
    const json& outages = body["outages"];
    if (!outages.is_array()) {
      fail("outages",
           "expected an array such as [{\"from\": \"1s\", \"for\": \"5s\", "
           "\"fault\": \"fail-before-commit\"}]");
    }
    for (std::size_t i = 0; i < outages.size(); ++i)
      plan.add_outage(parse_outage(outages[i], "outages[" + std::to_string(i) + "]"));
  }
  if (body.contains("capacity")) {
    plan.capacity_.emplace(parse_capacity(body["capacity"]));
    plan.capacity_use_ = plan.uses_.size();
    const Capacity& capacity = plan.capacity_->capacity();
    plan.uses_.push_back(
        {.source = "capacity",
         .fault = "a capacity of " + rate_text(capacity.rate) + " requests a second",
         .target = "requests that waited or were shed",
         .asked_for = "request",
         .optional = capacity.optional});
  }
  if (!body.contains("faults") && !body.contains("chaos") && !body.contains("outages") &&
      !body.contains("capacity")) {
    throw std::invalid_argument(
        "the plan needs \"faults\" (names and rules), \"chaos\", \"outages\" or \"capacity\"");
  }
  return plan;
}

FaultPlan FaultPlan::from_body(const json& body, const FaultPlan& in_force, Millis now) {
  if (!body.is_object() || !body.contains("outage")) return from_json(body);
  if (body.size() != 1) {
    throw std::invalid_argument(
        "plan: \"outage\" starts one outage in the plan in force and goes alone; a whole "
        "plan lists \"outages\"");
  }
  FaultPlan drilled = in_force;
  drilled.add_outage(parse_outage(body["outage"], "outage", now));
  return drilled;
}

void FaultPlan::add_outage(Outage outage) {
  outage_uses_.push_back(uses_.size());
  uses_.push_back({.source = "outages[" + std::to_string(outages_.size()) + "]",
                   .fault = "an outage of " + outage.fault_name(),
                   .target = "+" + std::to_string(outage.from.count()) + "ms to +" +
                             std::to_string(outage.until.count()) + "ms",
                   .asked_for = "create",
                   .optional = outage.optional});
  outages_.push_back(outage);
  outage_counts_.push_back(
      {AttemptCounts(kKeysCountedPerOutage), AttemptCounts(kKeysCountedPerOutage)});
}

std::optional<PlannedOutage> FaultPlan::take_outage(const std::string& subject, bool for_lookup,
                                                    Millis at, std::uint64_t seed) {
  for (std::size_t i = 0; i < outages_.size(); ++i) {
    const Outage& outage = outages_[i];
    AttemptCounts& counts = for_lookup ? outage_counts_[i].lookups : outage_counts_[i].creates;
    if (!outage.covers(at)) {
      if (at >= outage.until) counts.clear();  // its window is over: nothing more to draw
      continue;
    }
    if (for_lookup && !outage.lookups) continue;
    PlanUse& use = uses_[outage_uses_[i]];
    if (!for_lookup) ++use.compared;
    const std::uint64_t n = outage.rate < 1.0 ? counts.next(subject) : 0;
    if (outage_draws(outage, seed, i, subject, n, for_lookup)) {
      ++(for_lookup ? use.lookups_fired : use.fired);
      return PlannedOutage{outage, use.source};
    }
  }
  return std::nullopt;
}

std::optional<Queued> FaultPlan::take_queue(Millis at) {
  if (!capacity_) return std::nullopt;
  const Queued queued = capacity_->admit(at);
  PlanUse& use = uses_[capacity_use_];
  ++use.compared;
  // It fired on a request it made wait behind others, or shed: the service was past capacity.
  if (queued.shed || queued.wait > Millis(0)) ++use.fired;
  return queued;
}

void FaultPlan::note_compared(const json& payload) {
  if (!payload.is_object()) return;
  for (const auto& [field, value] : payload.items()) {
    if (fields_seen_.size() >= kFieldNamesKept) break;
    fields_seen_.insert(field);
  }
  for (const FaultRule& rule : rules_) {
    if (rule.key || rule.times_left <= 0 || is_lookup_fault(rule.fault)) continue;
    std::map<std::string, int>& carried = carried_[rule.use];
    for (const auto& [field, value] : rule.match.items())
      carried[field] += payload.contains(field) ? 1 : 0;
  }
}

PlannedFault FaultPlan::fired(std::size_t use, Fault fault) {
  ++uses_[use].fired;
  return {fault, uses_[use].source};
}

PlannedFault FaultPlan::take_for_create(const std::string& key, const json& payload,
                                        std::uint64_t n) {
  note_compared(payload);
  for (auto& rule : rules_) {
    if (is_lookup_fault(rule.fault) || rule.times_left <= 0) continue;
    ++uses_[rule.use].compared;
  }
  for (const auto& scripted : script_) {
    if (!is_lookup_fault(scripted.fault)) ++uses_[scripted.use].compared;
  }
  for (auto& rule : rules_) {
    if (!is_lookup_fault(rule.fault) && rule.applies_to(key, &payload)) {
      --rule.times_left;
      return fired(rule.use, rule.fault);
    }
  }
  // lookup-unavailable entries wait in the script for the next lookup; creates pass them.
  const auto next = std::find_if(script_.begin(), script_.end(), [](const ScriptedFault& entry) {
    return !is_lookup_fault(entry.fault);
  });
  if (next != script_.end()) {
    const ScriptedFault taken = *next;
    script_.erase(next);
    return fired(taken.use, taken.fault);
  }
  return draw_chaos(key, n, false);
}

PlannedFault FaultPlan::take_for_lookup(const std::string& key, std::uint64_t n) {
  for (auto& rule : rules_) {
    if (is_lookup_fault(rule.fault) && rule.times_left > 0) ++uses_[rule.use].compared;
  }
  for (const auto& scripted : script_) {
    if (is_lookup_fault(scripted.fault)) ++uses_[scripted.use].compared;
  }
  for (auto& rule : rules_) {
    if (is_lookup_fault(rule.fault) && rule.applies_to(key, nullptr)) {
      --rule.times_left;
      return fired(rule.use, rule.fault);
    }
  }
  const auto next = std::find_if(script_.begin(), script_.end(), [](const ScriptedFault& entry) {
    return is_lookup_fault(entry.fault);
  });
  if (next != script_.end()) {
    const ScriptedFault taken = *next;
    script_.erase(next);
    return fired(taken.use, taken.fault);
  }
  return draw_chaos(key, n, true);
}

PlannedFault FaultPlan::draw_chaos(const std::string& key, std::uint64_t n, bool for_lookup) {
  if (!chaos_ || !draws_chaos(for_lookup)) return {};
  ++uses_[chaos_use_].compared;
  const Fault fault = chaos_->choose(key, n, for_lookup);
  if (fault.kind == FaultKind::none) return {};
  return fired(chaos_use_, fault);
}

std::vector<PlanUse> FaultPlan::uses() const {
  std::vector<PlanUse> uses = uses_;
  std::vector<std::string> seen(fields_seen_.begin(), fields_seen_.end());
  for (const FaultRule& rule : rules_) {
    const auto carried = carried_.find(rule.use);
    if (carried == carried_.end()) continue;
    for (const auto& [field, creates] : carried->second) {
      if (creates == 0)
        uses[rule.use].unseen_fields.emplace_back(field, closest(field, seen).value_or(""));
    }
  }
  return uses;
}

std::string PlanUse::describe() const {
  std::string text =
      fault + (fired > 0 ? " (" + source + (target.empty() ? "" : ", for " + target) + ") fired " +
                               times_text(fired, "time")
                         : " was planned" + (target.empty() ? "" : " for " + target) +
                               " and fired 0 times");
  text += " in " + times_text(compared, asked_for);
  if (lookups_fired > 0) text += " (and " + times_text(lookups_fired, "lookup") + ")";
  for (const auto& [field, closest_carried] : unseen_fields) {
    text += "; " + field + ": no " + asked_for + " carried this field" +
            (closest_carried.empty() ? "" : "; did you mean " + closest_carried + "?");
  }
  return text;
}

bool FaultPlan::draws_chaos(bool for_lookup) const {
  return chaos_ && std::any_of(chaos_->rates.begin(), chaos_->rates.end(), [&](const auto& rate) {
           return is_lookup_fault(rate.first) == for_lookup && rate.second > 0;
         });
}

bool FaultPlan::fails_lookups() const {
  return draws_chaos(true) ||
         std::any_of(rules_.begin(), rules_.end(),
                     [](const FaultRule& rule) { return is_lookup_fault(rule.fault); }) ||
         std::any_of(script_.begin(), script_.end(),
                     [](const ScriptedFault& entry) { return is_lookup_fault(entry.fault); });
}

json FaultPlan::to_json() const {
  json faults = json::array();
  for (const auto& rule : rules_) {
    if (rule.times_left <= 0) continue;  // spent
    json entry = {{"fault", to_string(rule.fault)}, {"times", rule.times_left}};
    if (rule.key) {
      entry["key"] = *rule.key;
    } else {
      entry["match"] = rule.match;
    }
    if (uses_[rule.use].optional) entry["optional"] = true;
    faults.push_back(std::move(entry));
  }
  for (const auto& scripted : script_) {
    if (uses_[scripted.use].optional) {
      faults.push_back({{"fault", to_string(scripted.fault)}, {"optional", true}});
    } else {
      faults.push_back(to_string(scripted.fault));
    }
  }
  json plan = {{"faults", std::move(faults)}};
  if (chaos_) {
    json rates = json::object();
    for (const auto& [fault, rate] : chaos_->rates)
      rates[to_string(fault)] = rate;
    plan["chaos"] = {{"seed", chaos_->seed}, {"rates", std::move(rates)}};
    if (uses_[chaos_use_].optional) plan["chaos"]["optional"] = true;
  }
  // Written only when there are some, so that a plan without outages echoes as it always did.
  // Past windows stay: they are what happened.
  if (!outages_.empty()) {
    json outages = json::array();
    for (const Outage& outage : outages_)
      outages.push_back(provider::to_json(outage));
    plan["outages"] = std::move(outages);
  }
  if (capacity_) plan["capacity"] = provider::to_json(capacity_->capacity());
  return plan;
}

json FaultPlan::shown_json() const {
  json shown = to_json();
  shown["fired"] = uses_json();
  return shown;
}

json FaultPlan::uses_json() const {
  json fired = json::array();
  for (const PlanUse& use : uses()) {
    json unseen = json::array();
    for (const auto& [field, closest_carried] : use.unseen_fields) {
      unseen.push_back(
          {{"field", field},
           {"didYouMean", closest_carried.empty() ? json(nullptr) : json(closest_carried)}});
    }
    fired.push_back({{"source", use.source},
                     {"fault", use.fault},
                     {"target", use.target.empty() ? json(nullptr) : json(use.target)},
                     {"askedFor", use.asked_for},
                     {"fired", use.fired},
                     {"compared", use.compared},
                     {"lookupsFired", use.lookups_fired},
                     {"optional", use.optional},
                     {"unseenFields", std::move(unseen)},
                     {"text", use.describe()}});
  }
  return fired;
}

}  // namespace retryproof::provider
