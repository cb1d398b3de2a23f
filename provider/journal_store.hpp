// The journal as the provider holds it: the newest entries in memory, at most `limit` of
// them, and the older ones either spilled to a JSON Lines file (nothing is lost: reads
// take them from there) or dropped and counted. Seqs stay contiguous from 1 either way.
// In memory an entry is a 48-byte JournalRecord (journal_record.hpp) whose key and
// fingerprint are shared with the idempotency store; readers get JournalEntry values, made
// on read. An entry moved out lets go of what it referred to.
// Not thread-safe: its owner serialises access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "provider/intern_table.hpp"
#include "provider/journal.hpp"
#include "provider/journal_record.hpp"

namespace retryproof::provider {

struct JournalLimits {
  std::optional<std::size_t> in_memory;   // entries held in memory; unbounded when empty
  std::optional<std::string> spill_file;  // where older entries go; dropped when empty
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

  std::size_t count() const { return spilled_ + records_.size(); }  // entries a read returns
  std::uint64_t spilled() const { return spilled_; }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t first_seq() const { return dropped_ + 1; }  // the oldest a read returns

  // Up to `limit` entries (0: all) with seqs after `after`, by seq, from the file and memory.
  std::vector<JournalEntry> read(std::uint64_t after, std::size_t limit = 0) const;
  // The same entries as their JSON text, joined by commas: what a streamed read sends.
  std::string text(std::uint64_t after, std::size_t limit) const;
  // The entries in memory, by seq: all of them when nothing moved out.
  std::vector<JournalEntry> memory() const;
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
  std::string json_text(std::size_t index) const;  // of records_, with the extra fields
  // Lines of the spill file for seqs (after, after + limit], at most up to spilled_.
  std::vector<std::string> spilled_lines(std::uint64_t after, std::size_t limit) const;

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
  std::ofstream spill_;
  // The file offset of every kBlock-th spilled line, so that a page is one seek away
  // for a few bytes per thousand entries.
  std::vector<std::uint64_t> block_offsets_;
};

}  // namespace retryproof::provider
