// A journal entry as the journal store holds it: 48 bytes, where the JournalEntry readers
// get is about 350 plus its strings. Times are offsets from arrival, enums are bit fields,
// the key and the fingerprint are references into the tables the idempotency store shares
// (a key is held once however many entries and jobs name it), the method and path are one
// reference into a table of texts (a route's path is one text for all its requests; a
// lookup's path is its route's prefix and a flag saying the key follows), the operation is
// a reference into the same table, and the job id is its 32-bit value. An entry with a
// value that does not fit (an offset past 49 days, a hold past 4.6 hours, a fingerprint or
// job id this provider did not write) is not packed: the store keeps that one whole.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "provider/intern_table.hpp"
#include "provider/journal.hpp"

namespace retryproof::provider {

struct JournalRecord {
  static constexpr std::uint32_t kNone = UINT32_MAX;    // no time, no reference
  static constexpr std::uint16_t kNone16 = UINT16_MAX;  // no Retry-After
  static constexpr std::uint16_t kNoStatus = 1023;      // the 10-bit status field's "none"
  static constexpr std::uint32_t kMaxFaultArgument = (1U << 24) - 1;

  std::int64_t at_ms = 0;
  std::uint32_t answered = kNone;     // milliseconds after at_ms
  std::uint32_t abandoned = kNone;    // milliseconds after at_ms
  std::uint32_t key = kNone;          // KeyTables::keys
  std::uint32_t fingerprint = kNone;  // KeyTables::digests
  std::uint32_t operation = kNone;    // the codec's texts
  std::uint32_t line = kNone;  // the codec's texts: the method's length, the method, the path
  std::uint32_t job_id = 0;    // the id's value, when has_job_id
  // The fault's duration or Retry-After, by its row (a hold past 4.6 hours is kept whole),
  // and the plan's source beside it in the same 32 bits.
  std::uint32_t fault_argument : 24 = 0;
  std::uint32_t planned : 8 = 0;  // 0: none; else 1 + its index in the codec's source names
  std::uint16_t retry_after = kNone16;
  // The client's end of the connection the request came on (JournalEntry::client_port); 0
  // when the entry names none.
  std::uint16_t client_port = 0;
  std::uint16_t kind : 2 = 0;
  std::uint16_t outcome : 4 = 0;
  // The answer's error code: 0 none; else 1 + its row in error_code_table(), among the
  // first 15 (another, or a code that table does not know, keeps the entry whole).
  std::uint16_t code : 4 = 0;
  std::uint16_t delivery : 2 = 0;
  std::uint16_t fault : 4 = 0;  // 0: no fault; else the FaultKind + 1
  std::uint16_t has_job_id : 1 = 0;
  std::uint16_t path_ends_with_key : 1 = 0;  // the line holds the path up to its last '/'
  std::uint16_t whole : 1 = 0;               // not packed: the store keeps the JournalEntry itself
  std::uint16_t status : 10 = kNoStatus;     // an HTTP status is three digits
  // 0 none (plain HTTP), 1 false, 2 true.
  std::uint16_t close_notify : 2 = 0;
  std::uint16_t new_connection : 1 = 0;  // JournalEntry::new_connection

  bool answered_yet() const { return answered != kNone; }
};

static_assert(sizeof(JournalRecord) == 48);

// Packs entries into records and back, holding what records refer to.
class JournalCodec {
 public:
  JournalCodec(std::shared_ptr<KeyTables> shared, std::string id_prefix);

  // The entry as a record, each reference it makes held once more; nothing (and nothing
  // held) when a value does not fit.
  std::optional<JournalRecord> pack(const JournalEntry& entry);
  JournalEntry unpack(const JournalRecord& record, std::uint64_t seq) const;
  // Writes the entry's answer (answered, abandoned, delivery, status, Retry-After) into
  // the record; false, the record unchanged, when it does not fit.
  static bool pack_answer(JournalRecord& record, const JournalEntry& entry);
  // Lets go of what the record refers to.
  void release(const JournalRecord& record);

  std::size_t texts() const { return texts_.size(); }  // methods, paths and operations held

 private:
  // The index + 1 of a plan source's name ("faults[0]"), added when new; nothing when the
  // record's 8 bits cannot name another (the entry is then kept whole).
  std::optional<std::uint16_t> planned_index(const std::string& source);

  std::shared_ptr<KeyTables> shared_;
  InternTable<CompactBytes> texts_;
  std::string id_prefix_;
  // The plans' source names journaled: few, and kept for the codec's life.
  std::vector<std::string> planned_names_;
};

}  // namespace retryproof::provider
