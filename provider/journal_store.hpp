// The journal as the provider holds it: the newest entries in memory, at most `limit` of
// them, and the older ones either spilled to a JSON Lines file (nothing is lost: reads
// take them from there) or dropped and counted. Seqs stay contiguous from 1 either way.
// Not thread-safe: its owner serialises access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "provider/journal.hpp"

namespace retryproof::provider {

struct JournalLimits {
  std::optional<std::size_t> in_memory;   // entries held in memory; unbounded when empty
  std::optional<std::string> spill_file;  // where older entries go; dropped when empty
};

class JournalStore {
 public:
  // Creates (or truncates) the spill file. Throws std::runtime_error naming it when it
  // cannot be written.
  explicit JournalStore(JournalLimits limits = {});

  std::uint64_t next_seq() const { return moved_out() + memory_.size() + 1; }
  // Appends an entry (its seq is next_seq()); past the limit, the oldest answered entries
  // move out until half the limit remain. A held entry, still to be answered, stays, and
  // keeps the ones after it in memory until it is.
  void append(JournalEntry entry);
  // The entry with this seq while it is in memory, else null.
  JournalEntry* in_memory(std::uint64_t seq);

  std::size_t count() const { return spilled_ + memory_.size(); }  // entries a read returns
  std::uint64_t spilled() const { return spilled_; }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t first_seq() const { return dropped_ + 1; }  // the oldest a read returns

  // Up to `limit` entries (0: all) with seqs after `after`, by seq, from the file and memory.
  std::vector<JournalEntry> read(std::uint64_t after, std::size_t limit = 0) const;
  // The same entries as their JSON text, joined by commas: what a streamed read sends.
  std::string text(std::uint64_t after, std::size_t limit) const;
  // The entries in memory, by seq: all of them when nothing moved out.
  const std::vector<JournalEntry>& memory() const { return memory_; }

  void clear();  // an empty journal from seq 1, and an empty spill file

 private:
  std::uint64_t moved_out() const { return spilled_ + dropped_; }
  void move_out(std::size_t entries);
  // Lines of the spill file for seqs (after, after + limit], at most up to spilled_.
  std::vector<std::string> spilled_lines(std::uint64_t after, std::size_t limit) const;

  JournalLimits limits_;
  std::vector<JournalEntry> memory_;  // seqs moved_out() + 1 onwards
  std::uint64_t spilled_ = 0;         // seqs 1..spilled_ are in the file
  std::uint64_t dropped_ = 0;         // seqs 1..dropped_ are gone
  std::ofstream spill_;
  // The file offset of every kBlock-th spilled line, so that a page is one seek away
  // for a few bytes per thousand entries.
  std::vector<std::uint64_t> block_offsets_;
};

}  // namespace retryproof::provider
