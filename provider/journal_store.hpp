// The journal as the provider holds it: the newest entries in memory, at most `limit` of
// them, and the older ones either spilled to a JSON Lines file (written by a thread of its
// own, spill_file.hpp; reads take them from there) or dropped and counted. Seqs stay
// contiguous from 1 either way; a spilled entry whose write failed is lost, counted and
// named by seq. In memory an entry is a 48-byte JournalRecord (journal_record.hpp) whose key
// and fingerprint are shared with the idempotency store; readers get JournalEntry values,
// made on read. An entry moved out lets go of what it referred to.
// Not thread-safe: its owner serialises access. What its owner does under its lock is
// bounded by what it asks for (slice() copies at most `limit` entries); the spilled part
// of a slice, and every entry's JSON, is read and written after the lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "provider/intern_table.hpp"
#include "provider/journal.hpp"
#include "provider/journal_record.hpp"
#include "provider/spill_file.hpp"

namespace retryproof::provider {

struct JournalLimits {
  std::optional<std::size_t> in_memory;   // entries held in memory; unbounded when empty
  std::optional<std::string> spill_file;  // where older entries go; dropped when empty
  SpillFile::Writer spill_writer = {};    // how the file is written: pwrite(2) unless a test says
};

// What a read of the journal returns, as of one moment (JournalStore::extent()).
struct JournalExtent {
  std::uint64_t last_seq = 0;  // the newest entry's
  std::size_t count = 0;       // entries a whole read returns: neither dropped nor lost
  std::uint64_t dropped = 0;   // seqs 1..dropped are gone (a --journal-limit without a file)
  std::uint64_t lost = 0;      // spilled entries whose write failed
  std::vector<SeqRange> lost_seqs;
};

// Entries copied under the owner's lock (JournalStore::slice), to be read after it: the
// spilled ones from the file, those in memory as copied. By seq.
struct JournalSlice {
  std::shared_ptr<const SpillFile> spill;  // null when nothing of the slice is spilled
  std::uint64_t spilled_after = 0;         // the spilled part: seqs in (after, through]
  std::uint64_t spilled_through = 0;
  std::vector<CopiedEntry> memory;
  std::uint64_t through = 0;  // the last seq the slice covers, lost and dropped ones included

  // The entries' JSON text, as /_test/journal serves them. Throws SpillUnreadable.
  std::vector<std::string> texts() const;
  // The entries themselves. Throws SpillUnreadable, or std::invalid_argument for a line of
  // the file that is not an entry.
  std::vector<JournalEntry> entries() const;
};

class JournalStore {
 public:
  // Creates (or truncates) the spill file. Throws std::runtime_error naming it when it
  // cannot be written. `shared` holds keys and fingerprints (the idempotency store's, to
  // share them; its own when empty); job ids are `id_prefix` and 8 hex digits.
  explicit JournalStore(JournalLimits limits = {}, std::shared_ptr<KeyTables> shared = {},
                        std::string id_prefix = "job_");

  std::uint64_t next_seq() const { return moved_out() + records_.size() + 1; }
  // Appends an entry (its seq is next_seq()); past the limit, the oldest answered entries
  // move out until half the limit remain. A held entry, still to be answered, stays, and
  // keeps the ones after it in memory until it is.
  void append(const JournalEntry& entry);
  // Records what reached the client of a held entry (record_answer); an entry no longer in
  // memory was answered long ago, and is left as it is.
  void answer(std::uint64_t seq, const Decision& decision, Millis now);
  // Records that the client of a held entry closed its connection at `now`, unless it was
  // recorded already.
  void abandon(std::uint64_t seq, Millis now);
  // Records that the TLS stream of `seq`'s answer ended with a close_notify.
  void close_notify_sent(std::uint64_t seq);
  // Applies any change to the entry `seq` while it is in memory (a held one always is): the
  // proxy learns a forwarded request's outcome and job only from the upstream's answer.
  void amend(std::uint64_t seq, const std::function<void(JournalEntry&)>& change);

  // Fields its owner keeps beside each entry in memory (the proxy's upstream answer), added
  // to the entry's JSON wherever the store writes one (the spill file, text()); asked only
  // for entries still in memory, before they move out.
  using ExtraFields = std::function<void(std::uint64_t seq, nlohmann::json& entry)>;
  void set_extra_fields(ExtraFields extra) { extra_ = std::move(extra); }
  std::uint64_t first_in_memory() const { return moved_out() + 1; }  // the seq of the oldest

  std::size_t count() const;  // entries a read returns: neither dropped nor lost
  std::uint64_t spilled() const { return spilled_; }  // moved to the file (lost ones too)
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t lost() const { return spill_ ? spill_->lost() : 0; }
  std::uint64_t first_seq() const { return dropped_ + 1; }  // the oldest a read may return
  JournalExtent extent() const;

  // Up to `limit` entries (0: all) with seqs in (after, through] (through 0: to the newest):
  // those in memory copied, the spilled ones to read after the lock.
  JournalSlice slice(std::uint64_t after, std::size_t limit, std::uint64_t through = 0) const;
  // A slice read whole: the entries themselves. For tests and small journals: the spilled
  // part is read where it is called.
  std::vector<JournalEntry> read(std::uint64_t after, std::size_t limit = 0) const;
  // Up to `limit` entries in memory with seqs after `after`, by seq: what the verdicts judge,
  // copied a bounded piece at a time.
  std::vector<JournalEntry> memory(std::uint64_t after = 0, std::size_t limit = 0) const;
  // Waits until every spilled entry is written (or lost): tests, which read the file.
  void wait_spilled() const {
    if (spill_) spill_->wait_written();
  }
  std::size_t in_memory() const { return records_.size(); }
  // Entries in memory kept whole, a value of theirs too wide for a record.
  std::size_t kept_whole() const { return whole_.size(); }
  std::size_t texts() const { return codec_.texts(); }  // methods, paths, operations held

  void clear();  // an empty journal from seq 1, and an empty spill file

 private:
  std::uint64_t moved_out() const { return spilled_ + dropped_; }
  void move_out(std::size_t entries);
  JournalEntry entry_at(std::size_t index) const;  // of records_
  // Applies `change` to the held entry `seq`, if it is still in memory.
  template <typename Change>
  void update(std::uint64_t seq, Change change);
  CopiedEntry copy_at(std::size_t index) const;  // of records_, with the extra fields

  JournalLimits limits_;
  JournalCodec codec_;
  ExtraFields extra_;
  // Seqs moved_out() + 1 onwards. A deque, not a vector: an append never moves the records
  // already held, where a vector's doubling moved them all under the core's lock while every
  // request waited (a new-keys p99 of 76 ms at 32 connections, bench/results/figures.md).
  std::deque<JournalRecord> records_;
  std::unordered_map<std::uint64_t, JournalEntry> whole_;  // by seq, for records marked whole
  std::uint64_t spilled_ = 0;                              // seqs 1..spilled_ are in the file
  std::uint64_t dropped_ = 0;                              // seqs 1..dropped_ are gone
  std::shared_ptr<SpillFile> spill_;                       // with a spill file
};

}  // namespace retryproof::provider
