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

constexpr Names<Outcome, 13> kOutcomes{{
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
    {Outcome::shed, "shed"},
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
  if (status_line_sent && !decision.code.empty()) entry.code = decision.code;
  const auto retry_after = decision.headers.find("Retry-After");
  if (retry_after == decision.headers.end()) return;
  const std::string& text = retry_after->second;
  int seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error == std::errc{} && end == text.data() + text.size()) entry.retry_after_seconds = seconds;
}

std::optional<Outcome> outcome_named(std::string_view name) {
  for (const auto& [outcome, spelled] : kOutcomes) {
    if (spelled == name) return outcome;
  }
  return std::nullopt;
}

std::vector<std::string> outcome_names() {
  std::vector<std::string> names;
  for (const auto& [outcome, spelled] : kOutcomes)
    names.emplace_back(spelled);
  return names;
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
  if (entry.code) out["code"] = *entry.code;
  // What the client sent: byte for byte when it is UTF-8, else escaped and marked so.
  put_client_text(out, "path", entry.path);
  if (entry.key) put_client_text(out, "key", *entry.key);
  if (entry.operation) put_client_text(out, "operation", *entry.operation);
  if (entry.port) out["port"] = *entry.port;  // only a fleet's journal has the field
  if (entry.planned) out["planned"] = *entry.planned;
  if (entry.client_port) {
    out["clientPort"] = *entry.client_port;
    out["newConnection"] = entry.new_connection;
  }
  if (entry.queue)
    out["queue"] = {{"depth", entry.queue->depth}, {"waitMs", entry.queue->wait.count()}};
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
  entry.code = optional_text(in, "code");
  entry.retry_after_seconds = optional_number<int>(in, "retryAfter");
  entry.job_id = optional_text(in, "jobId");
  entry.port = optional_number<int>(in, "port");
  entry.close_notify = optional_flag(in, "closeNotify");
  entry.planned = optional_text(in, "planned");
  entry.client_port = optional_number<int>(in, "clientPort");
  entry.new_connection = optional_flag(in, "newConnection").value_or(false);
  entry.queue.reset();
  if (in.contains("queue")) {
    const json& queue = in["queue"];
    const auto depth =
        queue.is_object() ? optional_number<std::size_t>(queue, "depth") : std::nullopt;
    const auto wait =
        queue.is_object() ? optional_number<std::int64_t>(queue, "waitMs") : std::nullopt;
    if (!depth || !wait)
      throw std::invalid_argument("\"queue\": expected {\"depth\": N, \"waitMs\": N}");
    entry.queue = JournalEntry::Queue{*depth, Millis(*wait)};
  }
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

std::string MissingEntries::seqs_text() const {
  if (to == kUnknownEnd) return "seqs from " + std::to_string(from) + " on";
  if (from == to) return "seq " + std::to_string(from);
  return "seqs " + std::to_string(from) + "-" + std::to_string(to);
}

std::vector<MissingEntries> gaps_in(const std::vector<JournalEntry>& entries, std::uint64_t first,
                                    const std::string& why) {
  std::vector<MissingEntries> gaps;
  std::uint64_t expected = first;
  for (const JournalEntry& entry : entries) {
    if (entry.seq > expected) gaps.push_back({expected, entry.seq - 1, why});
    expected = std::max(expected, entry.seq + 1);
  }
  return gaps;
}

namespace {

// The seq ranges a document names under `field` ([[from, to], ...]), checked.
std::vector<MissingEntries> ranges_at(const json& document, const char* field,
                                      const std::string& why) {
  std::vector<MissingEntries> ranges;
  const auto found = document.find(field);
  if (found == document.end()) return ranges;
  const std::string where = "\"" + std::string(field) + "\"";
  if (!found->is_array()) throw std::invalid_argument(where + ": expected [[from, to], ...]");
  for (const json& range : *found) {
    const auto seq = [](const json& value) {
      return value.is_number_integer() && value.get<std::int64_t>() >= 1;
    };
    if (!range.is_array() || range.size() != 2 || !seq(range[0]) || !seq(range[1]) ||
        range[1].get<std::uint64_t>() < range[0].get<std::uint64_t>()) {
      throw std::invalid_argument(where + ": expected [[from, to], ...] with 1 <= from <= to");
    }
    ranges.push_back({range[0].get<std::uint64_t>(), range[1].get<std::uint64_t>(), why});
  }
  return ranges;
}

std::uint64_t count_at(const json& document, const char* field) {
  const auto found = document.find(field);
  if (found == document.end()) return 0;
  if (!found->is_number_integer() || found->get<std::int64_t>() < 0)
    throw std::invalid_argument("\"" + std::string(field) + "\": expected a whole number");
  return found->get<std::uint64_t>();
}

constexpr const char* kDropped =
    "dropped: the provider kept at most --journal-limit entries, and no --journal-file";
constexpr const char* kLost = "lost: a write to the provider's --journal-file failed";
constexpr const char* kNotThere = "not in the journal";
constexpr const char* kCut =
    "the journal ended before its last entry (its stream was cut short: a reset, an unreadable "
    "spill file, or a copy that did not finish)";

// The parts of `gap` that none of `named` covers.
std::vector<MissingEntries> unnamed_part(const MissingEntries& gap,
                                         const std::vector<MissingEntries>& named) {
  std::vector<MissingEntries> pieces = {gap};
  for (const MissingEntries& range : named) {
    std::vector<MissingEntries> left;
    for (const MissingEntries& piece : pieces) {
      if (range.to < piece.from || range.from > piece.to) {
        left.push_back(piece);
        continue;
      }
      if (range.from > piece.from) left.push_back({piece.from, range.from - 1, piece.why});
      if (range.to < piece.to) left.push_back({range.to + 1, piece.to, piece.why});
    }
    pieces = std::move(left);
  }
  return pieces;
}

}  // namespace

JournalDocument journal_document_from_json(const json& document) {
  JournalDocument read{journal_from_json(document), {}};
  std::sort(read.entries.begin(), read.entries.end(),
            [](const JournalEntry& a, const JournalEntry& b) { return a.seq < b.seq; });
  std::vector<MissingEntries> named;  // what the document says it lacks
  std::optional<std::uint64_t> count;
  bool cut = false;
  if (document.is_object()) {
    if (const std::uint64_t dropped = count_at(document, "dropped"); dropped > 0)
      named.push_back({1, dropped, kDropped});
    for (MissingEntries& lost : ranges_at(document, "lostSeqs", kLost))
      named.push_back(std::move(lost));
    if (document.contains("count")) count = count_at(document, "count");
    if (const auto field = document.find("operationField"); field != document.end()) {
      if (!field->is_string() || field->get<std::string>().empty())
        throw std::invalid_argument("\"operationField\": expected a payload field's name");
      read.operation_field = field->get<std::string>();
    }
    if (const auto complete = document.find("complete"); complete != document.end()) {
      if (!complete->is_boolean())
        throw std::invalid_argument("\"complete\": expected true or false");
      cut = !complete->get<bool>();
    }
  }
  const std::uint64_t last = read.entries.empty() ? 0 : read.entries.back().seq;
  if (count && read.entries.size() < *count) cut = true;
  // Gaps are what no range names: a journal that says it dropped seqs 1-500 is not missing
  // them twice.
  read.missing = named;
  for (const MissingEntries& gap : gaps_in(read.entries, 1, kNotThere)) {
    for (MissingEntries& piece : unnamed_part(gap, named))
      read.missing.push_back(std::move(piece));
  }
  if (cut) read.missing.push_back({last + 1, MissingEntries::kUnknownEnd, kCut});
  std::sort(read.missing.begin(), read.missing.end(),
            [](const MissingEntries& a, const MissingEntries& b) { return a.from < b.from; });
  return read;
}

}  // namespace retryproof::provider
