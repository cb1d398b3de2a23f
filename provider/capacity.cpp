#include "provider/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/duration.hpp"
#include "common/json_fields.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where + ": " + what);
}

Millis duration_at(const json& entry, const char* field, const std::string& where) {
  const std::string at = where + "." + field;
  if (!entry.contains(field)) refuse(at, "missing; a duration such as \"2s\"");
  if (!entry[field].is_string()) refuse(at, "expected a duration such as \"2s\"");
  try {
    return parse_duration(entry[field].get<std::string>());
  } catch (const std::invalid_argument& error) {
    refuse(at, error.what());
  }
}

CapacityDrop parse_drop(const json& entry, const std::string& where) {
  if (!entry.is_object())
    refuse(where, "expected {\"from\": \"10s\", \"for\": \"5s\", \"rate\": \"10/s\"}");
  refuse_unknown_fields(entry, where, {"from", "for", "rate"});
  CapacityDrop drop;
  drop.from = duration_at(entry, "from", where);
  const Millis length = duration_at(entry, "for", where);
  if (length <= Millis(0)) refuse(where + ".for", "a drop lasts longer than 0ms");
  drop.until = drop.from + length;
  if (!entry.contains("rate"))
    refuse(where + ".rate", "missing; requests a second, such as \"10/s\"");
  drop.rate = parse_rate(entry["rate"], where + ".rate");
  return drop;
}

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

std::int64_t micros(Millis at) {
  return at.count() * 1000;
}

Millis millis_after(std::int64_t from_us, std::int64_t until_us) {
  // Rounded up: an answer never goes out before its service has ended.
  return Millis((until_us - from_us + 999) / 1000);
}

}  // namespace

double Capacity::rate_at(Millis at) const {
  for (const CapacityDrop& drop : drops) {
    if (at >= drop.from && at < drop.until) return drop.rate;
  }
  return rate;
}

double parse_rate(const json& value, const std::string& where) {
  const std::string forms = "requests a second, as \"100/s\", \"6000/m\" or a number";
  double rate = 0;
  if (value.is_number()) {
    rate = value.get<double>();
  } else if (value.is_string()) {
    const std::string text = value.get<std::string>();
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) refuse(where, "\"" + text + "\" is not " + forms);
    const std::string unit = text.substr(slash + 1);
    const double per = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
    if (per == 0) refuse(where, "\"" + text + "\": the unit is s, m or h");
    std::size_t used = 0;
    try {
      rate = std::stod(text.substr(0, slash), &used) / per;
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != slash) refuse(where, "\"" + text + "\" is not " + forms);
  } else {
    refuse(where, "expected " + forms);
  }
  if (!std::isfinite(rate) || rate <= 0) refuse(where, "a rate is more than 0");
  if (rate > 1e6) refuse(where, "at most 1000000 requests a second");
  return rate;
}

Capacity parse_capacity(const json& entry) {
  const std::string where = "capacity";
  if (!entry.is_object()) {
    refuse(where, "expected {\"rate\": \"100/s\", \"queue\": 200, \"deadline\": \"2s\"}");
  }
  refuse_unknown_fields(entry, where, {"rate", "queue", "deadline", "drops", "optional"});
  Capacity capacity;
  if (!entry.contains("rate"))
    refuse(where + ".rate", "missing; requests a second, such as \"100/s\"");
  capacity.rate = parse_rate(entry["rate"], where + ".rate");
  if (!entry.contains("queue") || !entry["queue"].is_number_integer() ||
      entry["queue"].get<std::int64_t>() < 0 || entry["queue"].get<std::int64_t>() > 1'000'000) {
    refuse(where + ".queue", "expected how many requests may wait, from 0 to 1000000");
  }
  capacity.queue = entry["queue"].get<std::size_t>();
  capacity.deadline = duration_at(entry, "deadline", where);
  if (entry.contains("drops")) {
    const json& drops = entry["drops"];
    if (!drops.is_array()) refuse(where + ".drops", "expected an array of drops");
    for (std::size_t i = 0; i < drops.size(); ++i)
      capacity.drops.push_back(parse_drop(drops[i], where + ".drops[" + std::to_string(i) + "]"));
  }
  if (entry.contains("optional")) {
    if (!entry["optional"].is_boolean()) refuse(where + ".optional", "expected true or false");
    capacity.optional = entry["optional"].get<bool>();
  }
  return capacity;
}

json to_json(const Capacity& capacity) {
  json drops = json::array();
  for (const CapacityDrop& drop : capacity.drops) {
    drops.push_back({{"from", format_duration(drop.from)},
                     {"for", format_duration(drop.until - drop.from)},
                     {"rate", drop.rate}});
  }
  json entry = {{"rate", capacity.rate},
                {"queue", capacity.queue},
                {"deadline", format_duration(capacity.deadline)}};
  if (!drops.empty()) entry["drops"] = std::move(drops);
  if (capacity.optional) entry["optional"] = true;
  return entry;
}

Queued CapacityQueue::admit(Millis at) {
  const std::int64_t now = micros(at);
  while (!leaving_.empty() && leaving_.front() <= now)
    leaving_.pop_front();
  Queued queued{.depth = leaving_.size()};
  const std::int64_t starts = leaving_.empty() ? now : std::max(now, leaving_.back());
  // One in service, `queue` behind it: a request that would be the next one waiting is shed.
  if (queued.depth > capacity_.queue || starts - now > micros(capacity_.deadline)) {
    queued.shed = true;
    return queued;
  }
  // Its service takes 1/rate of a second at the rate in force when it begins.
  const double rate = capacity_.rate_at(Millis(starts / 1000));
  const auto service = static_cast<std::int64_t>(std::llround(kMicrosPerSecond / rate));
  leaving_.push_back(starts + std::max<std::int64_t>(service, 1));
  queued.wait = Millis((starts - now) / 1000);
  queued.served = millis_after(now, leaving_.back());
  return queued;
}

}  // namespace retryproof::provider
