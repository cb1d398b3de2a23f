#include "provider/journal.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "common/json_text.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

template <typename Enum, std::size_t N>
using Names = std::array<std::pair<Enum, std::string_view>, N>;

constexpr Names<RequestKind, 4> kKinds{{
    {RequestKind::create, "create"},
    {RequestKind::lookup, "lookup"},
    {RequestKind::control, "control"},
    {RequestKind::other, "other"},
}};

constexpr Names<Outcome, 12> kOutcomes{{
    {Outcome::new_operation, "new"},
    {Outcome::replay, "replay"},
    {Outcome::rejected, "rejected"},
    {Outcome::conflict, "conflict"},
    {Outcome::missing_key, "missing_key"},
    {Outcome::invalid, "invalid"},
    {Outcome::lookup_hit, "lookup_hit"},
    {Outcome::lookup_miss, "lookup_miss"},
    {Outcome::lookup_failed, "lookup_failed"},
    {Outcome::capacity_exhausted, "capacity_exhausted"},
    {Outcome::refused, "refused"},
    {Outcome::outage, "outage"},
}};

constexpr Names<Delivery, 4> kDeliveries{{
    {Delivery::respond, "respond"},
    {Delivery::drop, "drop"},
    {Delivery::reset, "reset"},
    {Delivery::truncate, "truncate"},
}};

template <typename Enum, std::size_t N>
std::string name_of(const Names<Enum, N>& names, Enum value) {
  for (const auto& [known, name] : names) {
    if (known == value) return std::string(name);
  }
  throw std::logic_error("an enumerator without a name");
}

template <typename Enum, std::size_t N>
Enum parse_name(const Names<Enum, N>& names, const std::string& text, const char* field) {
  for (const auto& [value, name] : names) {
    if (name == text) return value;
  }
  std::string known;
  for (const auto& [value, name] : names)
    known += (known.empty() ? "" : ", ") + std::string(name);
  throw std::invalid_argument("\"" + std::string(field) + "\": unknown value \"" + text +
                              "\"; expected one of " + known);
}

json or_null(const auto& optional) {
  return optional ? json(*optional) : json(nullptr);
}

// Readers that say which field is wrong.
const json& field(const json& object, const char* name) {
  const auto found = object.find(name);
  if (found == object.end())
    throw std::invalid_argument("missing field \"" + std::string(name) + "\"");
  return *found;
}

std::string text_of(const json& object, const char* name) {
  const json& value = field(object, name);
  if (!value.is_string())
    throw std::invalid_argument("\"" + std::string(name) + "\": expected a string");
  return value.get<std::string>();
}

std::optional<std::string> optional_text(const json& object, const char* name) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return std::nullopt;
  if (!found->is_string())
    throw std::invalid_argument("\"" + std::string(name) + "\": expected a string or null");
  return found->get<std::string>();
}

std::optional<bool> optional_flag(const json& object, const char* name) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return std::nullopt;
  if (!found->is_boolean())
    throw std::invalid_argument("\"" + std::string(name) + "\": expected true, false or null");
  return found->get<bool>();
}

template <typename Number>
std::optional<Number> optional_number(const json& object, const char* name) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return std::nullopt;
  const bool fits =
      std::is_unsigned_v<Number> ? found->is_number_unsigned() : found->is_number_integer();
  if (!fits) {
    throw std::invalid_argument("\"" + std::string(name) + "\": expected a whole number or null");
  }
  return found->get<Number>();
}

}  // namespace

std::string to_string(RequestKind kind) {
  return name_of(kKinds, kind);
}

std::string to_string(Outcome outcome) {
  return name_of(kOutcomes, outcome);
}

void record_answer(JournalEntry& entry, const Decision& decision, Millis now) {
  entry.answered_at = now + decision.delay;
  entry.delivery = decision.delivery;
  const bool status_line_sent =
      decision.delivery == Delivery::respond || decision.delivery == Delivery::truncate;
  if (status_line_sent) entry.status = decision.status;
  const auto retry_after = decision.headers.find("Retry-After");
  if (retry_after == decision.headers.end()) return;
  const std::string& text = retry_after->second;
  int seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error == std::errc{} && end == text.data() + text.size()) entry.retry_after_seconds = seconds;
}

void to_json(json& out, const JournalEntry& entry) {
  out = {
      {"seq", entry.seq},
      {"atMs", entry.at.count()},
      {"method", entry.method},
      {"path", entry.path},
      {"kind", to_string(entry.kind)},
      {"key", or_null(entry.key)},
      {"fingerprint", or_null(entry.fingerprint)},
      {"operation", or_null(entry.operation)},
      {"outcome", to_string(entry.outcome)},
      {"fault", entry.fault ? json(to_string(*entry.fault)) : json(nullptr)},
      {"answeredAtMs", entry.answered_at ? json(entry.answered_at->count()) : json(nullptr)},
      {"abandonedAtMs", entry.abandoned_at ? json(entry.abandoned_at->count()) : json(nullptr)},
      {"delivery", name_of(kDeliveries, entry.delivery)},
      {"status", or_null(entry.status)},
      {"delivered", entry.delivered()},
      {"retryAfter", or_null(entry.retry_after_seconds)},
      {"jobId", or_null(entry.job_id)},
      {"closeNotify", or_null(entry.close_notify)},
  };
  // What the client sent: byte for byte when it is UTF-8, else escaped and marked so.
  put_client_text(out, "path", entry.path);
  if (entry.key) put_client_text(out, "key", *entry.key);
  if (entry.operation) put_client_text(out, "operation", *entry.operation);
  if (entry.port) out["port"] = *entry.port;  // only a fleet's journal has the field
}

void from_json(const json& in, JournalEntry& entry) {
  if (!in.is_object()) throw std::invalid_argument("expected a journal entry object");
  const auto seq = optional_number<std::uint64_t>(in, "seq");
  const auto at = optional_number<std::int64_t>(in, "atMs");
  if (!seq || *seq == 0) throw std::invalid_argument("\"seq\": expected a whole number from 1");
  if (!at) throw std::invalid_argument("\"atMs\": expected a whole number");
  entry.seq = *seq;
  entry.at = Millis(*at);
  entry.method = text_of(in, "method");
  text_of(in, "path");  // there, and a string
  entry.path = *client_text(in, "path");
  entry.kind = parse_name(kKinds, text_of(in, "kind"), "kind");
  entry.key = client_text(in, "key");
  entry.fingerprint = optional_text(in, "fingerprint");
  entry.operation = client_text(in, "operation");
  entry.outcome = parse_name(kOutcomes, text_of(in, "outcome"), "outcome");
  entry.fault.reset();
  if (const auto fault = optional_text(in, "fault")) {
    try {
      entry.fault = parse_fault(*fault);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(std::string("\"fault\": ") + error.what());
    }
  }
  const auto answered = optional_number<std::int64_t>(in, "answeredAtMs");
  entry.answered_at = answered ? std::optional<Millis>(Millis(*answered)) : std::nullopt;
  const auto abandoned = optional_number<std::int64_t>(in, "abandonedAtMs");
  entry.abandoned_at = abandoned ? std::optional<Millis>(Millis(*abandoned)) : std::nullopt;
  entry.delivery = parse_name(kDeliveries, text_of(in, "delivery"), "delivery");
  entry.status = optional_number<int>(in, "status");
  entry.retry_after_seconds = optional_number<int>(in, "retryAfter");
  entry.job_id = optional_text(in, "jobId");
  entry.port = optional_number<int>(in, "port");
  entry.close_notify = optional_flag(in, "closeNotify");
}

std::optional<std::string> operation_value(const nlohmann::json& payload,
                                           const std::string& field) {
  const nlohmann::json* value = nullptr;
  if (field.starts_with('/')) {
    try {
      const nlohmann::json::json_pointer pointer(field);
      if (payload.contains(pointer)) value = &payload.at(pointer);
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;  // a pointer through an array by a name: the payload lacks it
    }
  } else if (const auto found = payload.find(field); found != payload.end()) {
    value = &*found;
  }
  if (value == nullptr) return std::nullopt;
  return value->is_string() ? value->get<std::string>() : compact_json(*value);
}

std::vector<JournalEntry> journal_from_json(const json& document) {
  const json* entries = &document;
  if (document.is_object()) {
    const auto found = document.find("entries");
    if (found == document.end()) {
      throw std::invalid_argument(
          "expected {\"count\": N, \"entries\": [...]} or an array of entries");
    }
    entries = &*found;
  }
  if (!entries->is_array()) throw std::invalid_argument("\"entries\": expected an array");
  std::vector<JournalEntry> journal;
  journal.reserve(entries->size());
  for (std::size_t i = 0; i < entries->size(); ++i) {
    try {
      journal.push_back((*entries)[i].get<JournalEntry>());
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument("entries[" + std::to_string(i) + "]: " + error.what());
    }
  }
  return journal;
}

}  // namespace retryproof::provider
