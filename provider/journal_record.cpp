#include "provider/journal_record.hpp"

#include <algorithm>
#include <string_view>

#include "provider/error_codes.hpp"
#include "provider/fault.hpp"
#include "provider/job_ids.hpp"

namespace retryproof::provider {
namespace {

using Record = JournalRecord;

constexpr std::size_t kMaxMethod = 255;  // its length is the line's first byte

// A time as an offset from arrival, if it fits.
std::optional<std::uint32_t> offset(const std::optional<Millis>& time, Millis at) {
  if (!time) return Record::kNone;
  const auto after = (*time - at).count();
  if (after < 0 || after >= Record::kNone) return std::nullopt;
  return static_cast<std::uint32_t>(after);
}

std::optional<Millis> time_at(std::uint32_t offset, Millis at) {
  if (offset == Record::kNone) return std::nullopt;
  return at + Millis(offset);
}

std::optional<std::uint16_t> small(const std::optional<int>& number) {
  if (!number) return Record::kNone16;
  if (*number < 0 || *number >= Record::kNone16) return std::nullopt;
  return static_cast<std::uint16_t>(*number);
}

std::optional<int> number_of(std::uint16_t value) {
  if (value == Record::kNone16) return std::nullopt;
  return value;
}

// A status in the record's 10 bits, if it fits.
std::optional<std::uint16_t> status_bits(const std::optional<int>& status) {
  if (!status) return Record::kNoStatus;
  if (*status < 0 || *status >= Record::kNoStatus) return std::nullopt;
  return static_cast<std::uint16_t>(*status);
}

// A client's port in the record's 16 bits (0 for none), if it is a port.
std::optional<std::uint16_t> port_bits(const std::optional<int>& port) {
  if (!port) return 0;
  if (*port < 1 || *port > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(*port);
}

// A fault's one argument, by what its row says the argument is; nothing when the other
// field is not its default (no fault the plans write, kept whole).
std::optional<std::uint32_t> fault_argument(const Fault& fault) {
  const Fault defaults;
  const auto fits = [](std::int64_t value) {
    return value >= 0 && value <= std::int64_t{Record::kMaxFaultArgument};
  };
  switch (row_of(fault.kind).parameter) {
    case FaultParameter::hold:
      if (!fits(fault.duration.count()) ||
          fault.retry_after_seconds != defaults.retry_after_seconds)
        return std::nullopt;
      return static_cast<std::uint32_t>(fault.duration.count());
    case FaultParameter::retry_after:
      if (!fits(fault.retry_after_seconds) || fault.duration != defaults.duration)
        return std::nullopt;
      return static_cast<std::uint32_t>(fault.retry_after_seconds);
    case FaultParameter::none:
      if (fault != Fault{.kind = fault.kind}) return std::nullopt;
      return 0;
  }
  return std::nullopt;
}

Fault fault_of(FaultKind kind, std::uint32_t argument) {
  Fault fault{.kind = kind};
  switch (row_of(kind).parameter) {
    case FaultParameter::hold:
      fault.duration = Millis(argument);
      break;
    case FaultParameter::retry_after:
      fault.retry_after_seconds = static_cast<int>(argument);
      break;
    case FaultParameter::none:
      break;
  }
  return fault;
}

// An error code in the record's 4 bits (0 for none), if it is among the table's first 15.
std::optional<std::uint16_t> code_bits(const std::optional<std::string>& code) {
  if (!code) return 0;
  const auto& table = error_code_table();
  for (std::size_t i = 0; i < table.size() && i < 15; ++i) {
    if (table[i].code == *code) return static_cast<std::uint16_t>(i + 1);
  }
  return std::nullopt;
}

// Whether the enum's value fits a field of `bits` bits (`reserved` values taken before it).
template <typename Enum>
bool fits(Enum value, unsigned bits, unsigned reserved = 0) {
  return static_cast<unsigned>(value) + reserved < (1U << bits);
}

// The path's part the line holds: all of it, or, when it ends with "/" and the key, up to
// and with that slash (a lookup by key, the key held once in the key table).
bool ends_with_key(const JournalEntry& entry) {
  if (!entry.key || entry.key->empty() || entry.path.size() <= entry.key->size()) return false;
  const std::size_t slash = entry.path.size() - entry.key->size() - 1;
  return entry.path[slash] == '/' && std::string_view(entry.path).substr(slash + 1) == *entry.key;
}

}  // namespace

JournalCodec::JournalCodec(std::shared_ptr<KeyTables> shared, std::string id_prefix)
    : shared_(std::move(shared)), id_prefix_(std::move(id_prefix)) {}

bool JournalCodec::pack_answer(Record& record, const JournalEntry& entry) {
  const std::optional<std::uint16_t> code = code_bits(entry.code);
  if (!code) return false;
  const Millis at(record.at_ms);
  const auto answered = offset(entry.answered_at, at);
  const auto abandoned = offset(entry.abandoned_at, at);
  const auto status = status_bits(entry.status);
  const auto retry_after = small(entry.retry_after_seconds);
  if (!answered || !abandoned || !status || !retry_after || !fits(entry.delivery, 2)) return false;
  record.answered = *answered;
  record.abandoned = *abandoned;
  record.status = *status & 1023U;
  record.retry_after = *retry_after;
  record.delivery = static_cast<std::uint16_t>(entry.delivery) & 3U;
  record.close_notify = !entry.close_notify ? 0 : (*entry.close_notify ? 2 : 1);
  record.code = *code & 15U;
  return true;
}

std::optional<Record> JournalCodec::pack(const JournalEntry& entry) {
  Record record{.at_ms = entry.at.count()};
  // A fleet's port and a queue's facts are not packed: fleets and runs at capacity are short,
  // and an entry with either is kept whole.
  const auto client_port = port_bits(entry.client_port);
  if (entry.port || entry.queue || !client_port || !pack_answer(record, entry) ||
      entry.method.size() > kMaxMethod || !fits(entry.kind, 2) || !fits(entry.outcome, 4)) {
    return std::nullopt;
  }
  record.client_port = *client_port;
  record.new_connection = entry.new_connection ? 1 : 0;
  std::optional<Digest> digest;
  if (entry.fingerprint) {
    digest = Digest::from_hex(*entry.fingerprint);
    if (digest->to_hex() != *entry.fingerprint) return std::nullopt;  // not as we write it
  }
  if (entry.job_id) {
    const auto value = job_id_value(*entry.job_id, id_prefix_);
    if (!value) return std::nullopt;
    record.job_id = *value;
    record.has_job_id = 1;
  }
  if (entry.fault) {
    const auto argument = fault_argument(*entry.fault);
    if (!argument || !fits(entry.fault->kind, 4, 1)) return std::nullopt;
    record.fault_argument = *argument & Record::kMaxFaultArgument;
    record.fault = (static_cast<std::uint16_t>(entry.fault->kind) + 1) & 15U;
  }
  if (entry.planned) {
    const auto planned = planned_index(*entry.planned);
    if (!planned) return std::nullopt;
    record.planned = *planned & 255U;
  }
  record.kind = static_cast<std::uint16_t>(entry.kind) & 3U;
  record.outcome = static_cast<std::uint16_t>(entry.outcome) & 15U;

  // Everything fits: only now take references, so that a refusal holds nothing.
  const bool key_follows = ends_with_key(entry);
  record.path_ends_with_key = key_follows ? 1 : 0;
  std::string line(1, static_cast<char>(entry.method.size()));
  line += entry.method;
  line += std::string_view(entry.path)
              .substr(0, entry.path.size() - (key_follows ? entry.key->size() : 0));
  record.line = texts_.acquire(line);
  if (entry.key) record.key = shared_->keys.acquire(*entry.key);
  if (digest) record.fingerprint = shared_->digests.acquire(*digest);
  if (entry.operation) record.operation = texts_.acquire(*entry.operation);
  return record;
}

JournalEntry JournalCodec::unpack(const Record& record, std::uint64_t seq) const {
  const Millis at(record.at_ms);
  JournalEntry entry{.seq = seq, .at = at};
  const std::string_view line = texts_.view(record.line);
  const auto method_length = static_cast<unsigned char>(line.front());
  entry.method = line.substr(1, method_length);
  entry.path = line.substr(1 + method_length);
  entry.kind = static_cast<RequestKind>(record.kind);
  if (record.key != Record::kNone) entry.key = std::string(shared_->keys.view(record.key));
  if (record.path_ends_with_key) entry.path += *entry.key;
  if (record.fingerprint != Record::kNone)
    entry.fingerprint = shared_->digests.view(record.fingerprint).to_hex();
  if (record.operation != Record::kNone)
    entry.operation = std::string(texts_.view(record.operation));
  entry.outcome = static_cast<Outcome>(record.outcome);
  if (record.code != 0) entry.code = std::string(error_code_table()[record.code - 1U].code);
  if (record.fault != 0)
    entry.fault = fault_of(static_cast<FaultKind>(record.fault - 1), record.fault_argument);
  entry.answered_at = time_at(record.answered, at);
  entry.abandoned_at = time_at(record.abandoned, at);
  entry.delivery = static_cast<Delivery>(record.delivery);
  if (record.close_notify != 0) entry.close_notify = record.close_notify == 2;
  if (record.status != Record::kNoStatus) entry.status = record.status;
  entry.retry_after_seconds = number_of(record.retry_after);
  if (record.has_job_id) entry.job_id = job_id_text(id_prefix_, record.job_id);
  if (record.planned != 0) entry.planned = planned_names_[record.planned - 1U];
  if (record.client_port != 0) entry.client_port = record.client_port;
  entry.new_connection = record.new_connection != 0;
  return entry;
}

std::optional<std::uint16_t> JournalCodec::planned_index(const std::string& source) {
  const auto found = std::find(planned_names_.begin(), planned_names_.end(), source);
  if (found != planned_names_.end())
    return static_cast<std::uint16_t>(found - planned_names_.begin() + 1);
  if (planned_names_.size() >= 255) return std::nullopt;
  planned_names_.push_back(source);
  return static_cast<std::uint16_t>(planned_names_.size());
}

void JournalCodec::release(const Record& record) {
  if (record.whole) return;
  texts_.release(record.line);
  texts_.release(record.operation);
  shared_->keys.release(record.key);
  shared_->digests.release(record.fingerprint);
}

}  // namespace retryproof::provider
