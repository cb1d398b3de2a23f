#include "provider/outage.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "common/duration.hpp"
#include "common/json_fields.hpp"
#include "common/splitmix64.hpp"
#include "common/stable_hash.hpp"
#include "common/suggest.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

constexpr std::string_view kSlowdown = "slowdown";

[[noreturn]] void refuse_outage(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where + ": " + what);
}

// An outage answers every request it takes the same way, before the store is read: so only
// a fault that commits nothing and answers a create can be one. Read from the catalogue, so
// a new pre-commit fault is an outage's too.
bool outage_may_take(const FaultRow& row) {
  return row.kind != FaultKind::none && row.target == FaultTarget::create &&
         row.commit == Commit::never;
}

std::vector<std::string> fault_names_allowed() {
  std::vector<std::string> names;
  for (const FaultRow& row : fault_catalogue()) {
    if (outage_may_take(row)) names.emplace_back(row.name);
  }
  names.emplace_back(kSlowdown);
  return names;
}

// Why a catalogue fault cannot be an outage's, in words.
std::string why_not(const FaultRow& row) {
  if (row.kind == FaultKind::none) return "fails nothing";
  if (row.target == FaultTarget::lookup) {
    return "fails lookups alone (an outage fails lookups with its own fault unless "
           "\"lookups\": false)";
  }
  return "commits the job";
}

Millis parse_duration_at(const json& value, const std::string& where) {
  if (!value.is_string()) refuse_outage(where, "expected a duration such as \"5s\"");
  try {
    return parse_duration(value.get<std::string>());
  } catch (const std::invalid_argument& error) {
    refuse_outage(where, error.what());
  }
}

void parse_fault_into(Outage& outage, const json& value, const std::string& where) {
  if (!value.is_string()) {
    refuse_outage(where, "expected a fault name such as \"fail-before-commit\" or \"slowdown:2s\"");
  }
  const std::string text = value.get<std::string>();
  const std::string name = text.substr(0, text.find(':'));
  const std::string quoted = "\"" + text + "\"";
  if (name == kSlowdown) {
    if (name.size() == text.size())
      refuse_outage(where, quoted + " needs a duration, such as slowdown:2s");
    try {
      outage.slowdown = parse_duration(std::string_view(text).substr(name.size() + 1));
    } catch (const std::invalid_argument& error) {
      refuse_outage(where, quoted + ": " + error.what());
    }
    if (*outage.slowdown <= Millis{0})
      refuse_outage(where, quoted + ": a slowdown holds longer than 0ms");
    return;
  }
  const auto& catalogue = fault_catalogue();
  const auto row = std::find_if(catalogue.begin(), catalogue.end(),
                                [&](const FaultRow& candidate) { return candidate.name == name; });
  if (row == catalogue.end()) {
    refuse_outage(where, "unknown fault " + quoted + did_you_mean(name, fault_names_allowed()) +
                             "; an outage takes " + outage_fault_names());
  }
  if (!outage_may_take(*row)) {
    refuse_outage(where, quoted + " " + why_not(*row) +
                             "; an outage takes only pre-commit faults and a slowdown: " +
                             outage_fault_names());
  }
  try {
    outage.fault = parse_fault(text);  // its parameter: rate-limited:<seconds>
  } catch (const std::invalid_argument& error) {
    refuse_outage(where, error.what());
  }
}

}  // namespace

std::string outage_fault_names() {
  std::string list;
  for (const FaultRow& row : fault_catalogue()) {
    if (outage_may_take(row)) list += spelling(row) + ", ";
  }
  return list + std::string(kSlowdown) + ":<duration>";
}

std::string Outage::fault_name() const {
  return slowdown ? std::string(kSlowdown) + ":" + format_duration(*slowdown) : to_string(fault);
}

Outage parse_outage(const json& entry, const std::string& where, std::optional<Millis> starts) {
  if (!entry.is_object()) {
    refuse_outage(
        where, "expected {\"from\": \"1s\", \"for\": \"5s\", \"fault\": \"fail-before-commit\"}");
  }
  refuse_unknown_fields(entry, where, {"from", "for", "fault", "rate", "lookups", "optional"});
  Outage outage;
  if (entry.contains("from")) {
    outage.from = parse_duration_at(entry["from"], where + ".from");
  } else if (starts) {
    outage.from = *starts;
  } else {
    refuse_outage(where, "an outage needs a \"from\": when it starts, on the provider's clock");
  }
  if (!entry.contains("for")) refuse_outage(where, "an outage needs a \"for\": how long it lasts");
  const Millis lasts = parse_duration_at(entry["for"], where + ".for");
  if (lasts <= Millis{0}) refuse_outage(where + ".for", "an outage lasts longer than 0ms");
  outage.until = outage.from + lasts;
  if (!entry.contains("fault")) {
    refuse_outage(where, "an outage needs a \"fault\": " + outage_fault_names());
  }
  parse_fault_into(outage, entry["fault"], where + ".fault");
  if (entry.contains("rate")) {
    const json& rate = entry["rate"];
    if (!rate.is_number() || rate.get<double>() <= 0 || rate.get<double>() > 1) {
      refuse_outage(where + ".rate",
                    "expected a share of requests above 0 and at most 1, such as 0.5");
    }
    outage.rate = rate.get<double>();
  }
  if (entry.contains("lookups")) {
    if (!entry["lookups"].is_boolean()) refuse_outage(where + ".lookups", "expected true or false");
    outage.lookups = entry["lookups"].get<bool>();
  }
  if (entry.contains("optional")) {
    if (!entry["optional"].is_boolean())
      refuse_outage(where + ".optional", "expected true or false");
    outage.optional = entry["optional"].get<bool>();
  }
  return outage;
}

json to_json(const Outage& outage) {
  json written = {{"from", format_duration(outage.from)},
                  {"for", format_duration(outage.until - outage.from)},
                  {"fault", outage.fault_name()},
                  {"rate", outage.rate},
                  {"lookups", outage.lookups}};
  if (outage.optional) written["optional"] = true;
  return written;
}

bool outage_draws(const Outage& outage, std::uint64_t seed, std::size_t index,
                  const std::string& subject, std::uint64_t n, bool for_lookup) {
  if (outage.rate >= 1.0) return true;
  // One hash over every part, each ended by a byte no key holds, so that ("a", 12) and
  // ("a1", 2) are different draws.
  const std::string parts = subject + '\0' + std::to_string(index) + '\0' + std::to_string(n) +
                            '\0' + (for_lookup ? "lookup" : "create");
  SplitMix64 random(seed ^ stable_hash(parts));
  const double draw = static_cast<double>(random.next() >> 11) * 0x1.0p-53;  // uniform [0, 1)
  return draw < outage.rate;
}

}  // namespace retryproof::provider
