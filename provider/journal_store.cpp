#include "provider/journal_store.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <stdexcept>

#include "common/invariant.hpp"
#include "common/json_text.hpp"

namespace retryproof::provider {
namespace {}  // namespace

JournalStore::JournalStore(JournalLimits limits, std::shared_ptr<KeyTables> shared,
                           std::string id_prefix)
    : limits_(std::move(limits)),
      codec_(shared ? std::move(shared) : std::make_shared<KeyTables>(), std::move(id_prefix)) {
  if (limits_.spill_file)
    spill_ = std::make_shared<SpillFile>(*limits_.spill_file, limits_.spill_writer);
}

void JournalStore::append(const JournalEntry& entry) {
  check_invariant(entry.seq == next_seq(), "journal seqs are contiguous from 1");
  if (std::optional<JournalRecord> record = codec_.pack(entry)) {
    // Every test that journals anything checks the record reads back as the entry (a debug
    // self-check: unpacking every entry again would cost the release build's hot path).
    assert(codec_.unpack(*record, entry.seq) == entry);
    records_.push_back(*record);
  } else {
    records_.push_back(
        JournalRecord{.answered = entry.answered() ? 0 : JournalRecord::kNone, .whole = 1});
    whole_.insert_or_assign(next_seq() - 1, entry);
  }
  if (!limits_.in_memory || records_.size() <= *limits_.in_memory) return;
  // Half the limit at a time: erasing from the front of the vector is then amortised O(1)
  // per entry.
  const std::size_t keep = *limits_.in_memory / 2;
  const auto unanswered =
      std::find_if(records_.begin(), records_.end(),
                   [](const JournalRecord& held) { return !held.answered_yet(); });
  const auto movable = static_cast<std::size_t>(std::distance(records_.begin(), unanswered));
  move_out(std::min(movable, records_.size() - keep));
}

JournalEntry JournalStore::entry_at(std::size_t index) const {
  const std::uint64_t seq = moved_out() + index + 1;
  const JournalRecord& record = records_[index];
  return record.whole ? whole_.at(seq) : codec_.unpack(record, seq);
}

template <typename Change>
void JournalStore::update(std::uint64_t seq, Change change) {
  if (seq <= moved_out() || seq >= next_seq()) return;
  JournalRecord& record = records_[seq - moved_out() - 1];
  if (record.whole) {
    JournalEntry& entry = whole_.at(seq);
    change(entry);
    record.answered = entry.answered() ? 0 : JournalRecord::kNone;
    return;
  }
  JournalEntry entry = codec_.unpack(record, seq);
  change(entry);
  if (JournalCodec::pack_answer(record, entry)) return;
  codec_.release(record);  // an answer too wide for the record: kept whole from now on
  record = JournalRecord{.answered = entry.answered() ? 0 : JournalRecord::kNone, .whole = 1};
  whole_.insert_or_assign(seq, std::move(entry));
}

void JournalStore::answer(std::uint64_t seq, const Decision& decision, Millis now) {
  update(seq, [&](JournalEntry& entry) { record_answer(entry, decision, now); });
}

void JournalStore::abandon(std::uint64_t seq, Millis now) {
  update(seq, [&](JournalEntry& entry) {
    if (!entry.abandoned_at) entry.abandoned_at = now;
  });
}

void JournalStore::close_notify_sent(std::uint64_t seq) {
  update(seq, [](JournalEntry& entry) { entry.close_notify = true; });
}

void JournalStore::amend(std::uint64_t seq, const std::function<void(JournalEntry&)>& change) {
  if (seq <= moved_out() || seq >= next_seq()) return;
  JournalRecord& record = records_[seq - moved_out() - 1];
  JournalEntry entry = record.whole ? whole_.at(seq) : codec_.unpack(record, seq);
  change(entry);
  // Packed anew before the old record lets go, so that a key both name is never freed between.
  std::optional<JournalRecord> packed = codec_.pack(entry);
  if (!record.whole) codec_.release(record);
  if (packed) {
    assert(codec_.unpack(*packed, seq) == entry);
    whole_.erase(seq);
    record = *packed;
    return;
  }
  record = JournalRecord{.answered = entry.answered() ? 0 : JournalRecord::kNone, .whole = 1};
  whole_.insert_or_assign(seq, std::move(entry));
}

CopiedEntry JournalStore::copy_at(std::size_t index) const {
  CopiedEntry copied{.entry = entry_at(index), .extra = nullptr};
  if (extra_) {
    copied.extra = nlohmann::json::object();
    extra_(copied.entry.seq, copied.extra);
  }
  return copied;
}

void JournalStore::move_out(std::size_t entries) {
  if (entries == 0) return;
  if (spill_) {
    // Copied here, rendered and written by the file's writer thread: under the owner's lock
    // a move-out costs the copies, never the disk.
    std::vector<CopiedEntry> leaving;
    leaving.reserve(entries);
    for (std::size_t i = 0; i < entries; ++i)
      leaving.push_back(copy_at(i));
    spill_->append(moved_out() + 1, std::move(leaving));
  }
  for (std::size_t i = 0; i < entries; ++i) {
    const JournalRecord& record = records_[i];
    if (record.whole) whole_.erase(moved_out() + i + 1);
    codec_.release(record);
  }
  (spill_ ? spilled_ : dropped_) += entries;
  records_.erase(records_.begin(), records_.begin() + static_cast<std::ptrdiff_t>(entries));
}

std::size_t JournalStore::count() const {
  return static_cast<std::size_t>(spilled_ - lost()) + records_.size();
}

JournalExtent JournalStore::extent() const {
  JournalExtent extent{.last_seq = next_seq() - 1, .dropped = dropped_};
  if (spill_) {
    extent.lost_seqs = spill_->lost_seqs();
    for (const SeqRange& range : extent.lost_seqs)
      extent.lost += range.to - range.from + 1;
  }
  extent.count = static_cast<std::size_t>(spilled_ - extent.lost) + records_.size();
  return extent;
}

JournalSlice JournalStore::slice(std::uint64_t after, std::size_t limit,
                                 std::uint64_t through) const {
  const std::uint64_t last = through == 0 ? next_seq() - 1 : std::min(through, next_seq() - 1);
  after = std::max(after, dropped_);
  JournalSlice slice{.through = std::max(after, last)};
  if (after >= last) return slice;
  std::uint64_t room = limit == 0 ? UINT64_MAX : limit;  // seqs the slice may still cover
  if (spill_ && after < moved_out()) {
    // Bounded by seqs, lost ones included, which bounds what the file's part returns.
    slice.spill = spill_;
    slice.spilled_after = after;
    slice.spilled_through = std::min({moved_out(), last, after + std::min(room, last)});
    slice.through = slice.spilled_through;
    room -= slice.spilled_through - after;
    after = slice.spilled_through;
  }
  for (std::uint64_t seq = std::max(after, moved_out()) + 1; seq <= last && room > 0;
       ++seq, --room) {
    slice.memory.push_back(copy_at(static_cast<std::size_t>(seq - moved_out() - 1)));
    slice.through = seq;
  }
  return slice;
}

std::vector<std::string> JournalSlice::texts() const {
  std::vector<std::string> texts;
  if (spill) texts = spill->read(spilled_after, spilled_through);
  texts.reserve(texts.size() + memory.size());
  for (const CopiedEntry& copied : memory)
    texts.push_back(entry_text(copied));
  return texts;
}

std::vector<JournalEntry> JournalSlice::entries() const {
  std::vector<JournalEntry> entries;
  if (spill) {
    for (const std::string& line : spill->read(spilled_after, spilled_through))
      entries.push_back(nlohmann::json::parse(line).get<JournalEntry>());
  }
  entries.reserve(entries.size() + memory.size());
  for (const CopiedEntry& copied : memory)
    entries.push_back(copied.entry);
  return entries;
}

std::vector<JournalEntry> JournalStore::read(std::uint64_t after, std::size_t limit) const {
  return slice(after, limit).entries();
}

std::vector<JournalEntry> JournalStore::memory(std::uint64_t after, std::size_t limit) const {
  const std::uint64_t from = std::max(after, moved_out()) - moved_out();
  const std::size_t count =
      from >= records_.size() ? 0 : records_.size() - static_cast<std::size_t>(from);
  const std::size_t taken = limit == 0 ? count : std::min(count, limit);
  std::vector<JournalEntry> entries;
  entries.reserve(taken);
  for (std::size_t i = 0; i < taken; ++i)
    entries.push_back(entry_at(static_cast<std::size_t>(from) + i));
  return entries;
}

void JournalStore::clear() {
  for (const JournalRecord& record : records_)
    codec_.release(record);
  records_.clear();
  whole_.clear();
  spilled_ = dropped_ = 0;
  if (spill_) spill_->restart();
}

}  // namespace retryproof::provider
