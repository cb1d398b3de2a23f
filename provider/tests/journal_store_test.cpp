// The journal's bound: past --journal-limit the oldest half of the entries spills to a
// JSON Lines file (and reads take it from there) or is dropped and counted.
#include "provider/journal_store.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"

namespace retryproof::provider {
namespace {

JournalEntry answered(std::uint64_t seq) {
  return JournalEntry{.seq = seq,
                      .at = Millis(seq * 10),
                      .method = "POST",
                      .path = "/jobs",
                      .kind = RequestKind::create,
                      .key = "key-" + std::to_string(seq),
                      .outcome = Outcome::replay,
                      .answered_at = Millis(seq * 10 + 1),
                      .status = 200,
                      .job_id = "job_0000000" + std::to_string(seq % 10)};
}

std::vector<JournalEntry> append(JournalStore& journal, std::uint64_t count) {
  std::vector<JournalEntry> appended;
  for (std::uint64_t i = 0; i < count; ++i) {
    appended.push_back(answered(journal.next_seq()));
    journal.append(appended.back());
  }
  return appended;
}

std::size_t lines_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);)
    ++lines;
  return lines;
}

TEST(JournalStore, PastTheLimitTheOldestHalfSpillsAndEveryEntryReadsBack) {
  const TempDir dir;
  const auto file = dir.path() / "journal.jsonl";
  JournalStore journal({.in_memory = 4, .spill_file = file.string()});
  const std::vector<JournalEntry> appended = append(journal, 5);

  EXPECT_EQ(journal.spilled(), 3U);  // 5 entries, 2 (half the limit) stay
  EXPECT_EQ(journal.in_memory(), 2U);
  journal.wait_spilled();
  EXPECT_EQ(lines_in(file), 3U);
  EXPECT_EQ(journal.count(), 5U);
  EXPECT_EQ(journal.read(0), appended);
  EXPECT_EQ(journal.read(2, 2),
            std::vector<JournalEntry>(appended.begin() + 2, appended.begin() + 4));
  journal.abandon(3, Millis(500));  // spilled: answered long ago, left as it is
  EXPECT_EQ(journal.read(2, 1).at(0), appended[2]);
  journal.abandon(5, Millis(500));
  EXPECT_EQ(journal.read(4, 1).at(0).abandoned_at, Millis(500));
}

TEST(JournalStore, AThousandPagesOfSpilledEntriesReadBackInOrder) {
  const TempDir dir;
  JournalStore journal({.in_memory = 10, .spill_file = (dir.path() / "j.jsonl").string()});
  const std::vector<JournalEntry> appended = append(journal, 5000);  // past several blocks
  std::vector<JournalEntry> paged;
  for (std::uint64_t after = 0; after < 5000; after += 7) {
    const std::vector<JournalEntry> page = journal.read(after, 7);
    paged.insert(paged.end(), page.begin(), page.end());
  }
  EXPECT_EQ(paged, appended);
  EXPECT_EQ(journal.spilled() + journal.in_memory(), 5000U);
}

TEST(JournalStore, WithoutAFileTheOldestAreDroppedAndCounted) {
  JournalStore journal({.in_memory = 4});
  const std::vector<JournalEntry> appended = append(journal, 10);
  // At 5: 3 dropped, 2 kept; at 8: 3 more dropped; 9 and 10 join 7 and 8.
  EXPECT_EQ(journal.dropped(), 6U);
  EXPECT_EQ(journal.count(), 4U);
  EXPECT_EQ(journal.first_seq(), 7U);
  EXPECT_EQ(journal.next_seq(), 11U);
  EXPECT_EQ(journal.read(0), std::vector<JournalEntry>(appended.begin() + 6, appended.end()));
}

TEST(JournalStore, AHeldEntryStaysInMemoryUntilItIsAnswered) {
  const TempDir dir;
  JournalStore journal({.in_memory = 2, .spill_file = (dir.path() / "j.jsonl").string()});
  journal.append(answered(1));
  JournalEntry held = answered(2);
  held.answered_at.reset();
  journal.append(held);
  append(journal, 3);
  EXPECT_EQ(journal.spilled(), 1U) << "only the entry before the held one may move out";
  journal.answer(2, Decision{.status = 201}, Millis(99));
  append(journal, 1);
  EXPECT_EQ(journal.spilled(), 5U);  // 6 entries, 1 (half the limit) stays
  EXPECT_EQ(journal.read(1, 1).at(0).answered_at, Millis(99));
  EXPECT_EQ(journal.read(1, 1).at(0).status, 201);
}

TEST(JournalStore, ClearEmptiesTheFileAndStartsFromSeqOne) {
  const TempDir dir;
  const auto file = dir.path() / "j.jsonl";
  JournalStore journal({.in_memory = 2, .spill_file = file.string()});
  append(journal, 6);
  journal.clear();
  journal.wait_spilled();
  EXPECT_EQ(lines_in(file), 0U);
  EXPECT_EQ(journal.next_seq(), 1U);
  append(journal, 3);
  EXPECT_EQ(journal.read(0).front().seq, 1U);
  journal.wait_spilled();
  EXPECT_EQ(lines_in(file), 2U);
}

TEST(JournalStore, AnEntryOutOfSeqIsAnInternalErrorInEveryBuild) {
  JournalStore journal;
  append(journal, 2);
  EXPECT_THROW(journal.append(answered(5)), InternalError);  // seq 3 would be missing
  EXPECT_THROW(journal.append(answered(2)), InternalError);  // seq 2 twice
  EXPECT_EQ(journal.next_seq(), 3U) << "nothing was appended";
}

// A write to the spill file that fails (a full disk: /dev/full fails every write with ENOSPC)
// loses the entries it carried, and says so: counted, named by seq, left out of a read, and
// the journal goes on taking entries.
TEST(JournalStore, AFailedSpillWriteIsCountedAndNamedAsLoss) {
  JournalStore journal({.in_memory = 4, .spill_file = "/dev/full"});
  const std::vector<JournalEntry> appended = append(journal, 10);  // 6 move out, in two batches
  journal.wait_spilled();
  EXPECT_EQ(journal.lost(), 6U);
  const JournalExtent extent = journal.extent();
  EXPECT_EQ(extent.lost_seqs, (std::vector<SeqRange>{{1, 6}}));  // adjacent batches, one range
  EXPECT_EQ(extent.count, 4U);
  EXPECT_EQ(journal.count(), 4U);
  EXPECT_EQ(journal.read(0), std::vector<JournalEntry>(appended.begin() + 6, appended.end()));
}

// A disk that fills and empties again: the batch whose write failed is lost, the file is cut
// back to its last whole line, and the batches before and after it read back whole.
TEST(JournalStore, OnlyTheBatchWhoseWriteFailedIsLost) {
  const TempDir dir;
  const auto file = dir.path() / "j.jsonl";
  int writes = 0;
  const SpillFile::Writer second_write_fails = [&writes](int fd, std::string_view bytes,
                                                         std::uint64_t offset) {
    if (++writes == 2) {  // half of it reaches the disk, then the disk is full
      (void)::pwrite(fd, bytes.data(), bytes.size() / 2, static_cast<off_t>(offset));
      return false;
    }
    return ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) ==
           static_cast<ssize_t>(bytes.size());
  };
  JournalStore journal(
      {.in_memory = 4, .spill_file = file.string(), .spill_writer = second_write_fails});
  std::vector<JournalEntry> appended;
  for (int batch = 0; batch < 3;
       ++batch) {  // one batch of 3 entries per 3 appended, past the first 2
    const std::vector<JournalEntry> more = append(journal, batch == 0 ? 5 : 3);
    appended.insert(appended.end(), more.begin(), more.end());
    journal.wait_spilled();  // each batch written before the next is queued
  }
  EXPECT_EQ(journal.extent().lost_seqs, (std::vector<SeqRange>{{4, 6}}));
  std::vector<JournalEntry> expected(appended.begin(), appended.begin() + 3);
  expected.insert(expected.end(), appended.begin() + 6, appended.end());
  EXPECT_EQ(journal.read(0), expected);
  EXPECT_EQ(lines_in(file), 6U) << "the half-written line was cut off";
}

// Entries queued for the writer read back before they are written: a reader never waits for
// the disk, and never misses an entry that moved out.
TEST(JournalStore, EntriesOnTheirWayToTheFileReadBackFromMemory) {
  const TempDir dir;
  std::mutex disk;
  disk.lock();  // the writer waits here until the test lets it write
  const SpillFile::Writer held_writer = [&disk](int fd, std::string_view bytes,
                                                std::uint64_t offset) {
    const std::lock_guard released(disk);
    return ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)) ==
           static_cast<ssize_t>(bytes.size());
  };
  JournalStore journal({.in_memory = 4,
                        .spill_file = (dir.path() / "j.jsonl").string(),
                        .spill_writer = held_writer});
  const std::vector<JournalEntry> appended = append(journal, 10);
  EXPECT_EQ(journal.read(0), appended);
  EXPECT_EQ(journal.read(2, 3),
            std::vector<JournalEntry>(appended.begin() + 2, appended.begin() + 5));
  disk.unlock();
  journal.wait_spilled();
  EXPECT_EQ(journal.read(0), appended);
}

}  // namespace
}  // namespace retryproof::provider
