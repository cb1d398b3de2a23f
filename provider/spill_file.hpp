// The --journal-file: the journal entries that moved out of memory, as JSON Lines, written
// by a thread of its own so that no request waits for the disk. The journal's owner queues
// each batch of entries as they move out (under its lock: a move of the batch, nothing
// more); the writer renders and writes it; readers read it back from any thread, without
// the owner's lock, a queued batch from memory and a written one from the file.
//
// A write that fails (a full disk, an I/O error) is loss, never silence: the batch's seqs
// are counted as lost and listed as ranges, the file is cut back to its last whole line, and
// later batches are written as usual, so the journal goes on serving.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "provider/journal.hpp"

namespace retryproof::provider {

// An entry as a reader or the file gets it: the entry, and the fields its owner keeps beside
// it (the proxy's upstream answer; null for the provider's), merged into its JSON.
struct CopiedEntry {
  JournalEntry entry;
  nlohmann::json extra;
};
// The entry's JSON text, exactly as /_test/journal serves it and the file holds it.
std::string entry_text(const CopiedEntry& copied);

// Seqs from `from` to `to`, both included.
struct SeqRange {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  friend bool operator==(const SeqRange&, const SeqRange&) = default;
};

// Thrown by a read when the file no longer holds what was written to it (changed or cut by
// someone else), or when a reset replaced it while it was read.
struct SpillUnreadable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SpillFile {
 public:
  // Writes `bytes` at `offset` of the descriptor; false when not all of them were written.
  // The default is pwrite(2); a test gives one that fails like a full disk.
  using Writer = std::function<bool(int fd, std::string_view bytes, std::uint64_t offset)>;

  // Creates (or truncates) the file. Throws std::runtime_error naming it when it cannot be
  // written ("--journal-file PATH: cannot be written").
  explicit SpillFile(std::string path, Writer writer = {});
  // Writes what is queued, then stops the writer.
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Queues the entries of seqs first_seq, first_seq + 1, ... for writing, in seq order after
  // those queued before.
  void append(std::uint64_t first_seq, std::vector<CopiedEntry> entries);
  // The JSON text of every entry queued or written with a seq in (after, through], by seq;
  // lost seqs are skipped. Any thread. Throws SpillUnreadable.
  std::vector<std::string> read(std::uint64_t after, std::uint64_t through) const;
  std::uint64_t lost() const;               // entries whose write failed
  std::vector<SeqRange> lost_seqs() const;  // which, as ranges
  // Empties the file and forgets what was queued and lost: a reset. Never waits for the disk.
  void restart();
  // Waits until everything queued so far is written or lost (tests; the owner at stop).
  void wait_written() const;

 private:
  // One file as created at start or by a reset. Shared with the writer and readers still
  // using it: a reset replaces it, and they find out when they look again.
  struct Generation;
  // A run of consecutive seqs written one line after another.
  struct Run {
    std::uint64_t first_seq = 0;
    std::uint64_t count = 0;
    std::vector<std::uint64_t> block_offsets;  // the offset of every kBlock-th line
    std::uint64_t end = 0;                     // the offset just past its last line
  };
  struct Batch {
    std::uint64_t first_seq = 0;
    std::vector<CopiedEntry> entries;
  };

  void write_batches();  // the writer thread
  void settle(const std::shared_ptr<const Batch>& batch, bool written, std::uint64_t offset,
              const std::vector<std::uint64_t>& line_offsets, std::uint64_t end);
  std::shared_ptr<Generation> open_generation() const;

  const std::string path_;
  const Writer writer_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;  // a batch queued, written or lost; a stop
  std::shared_ptr<Generation> generation_;
  std::deque<std::shared_ptr<const Batch>> queued_;  // the front one may be being written
  std::vector<Run> runs_;
  std::vector<SeqRange> lost_seqs_;
  std::uint64_t lost_ = 0;
  bool stopping_ = false;
  std::thread writer_thread_;  // last: started once everything above exists
};

}  // namespace retryproof::provider
