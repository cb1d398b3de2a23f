#include "provider/journal_store.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <stdexcept>

#include "common/invariant.hpp"
#include "common/json_text.hpp"

namespace retryproof::provider {
namespace {

constexpr std::uint64_t kBlock = 1024;  // spilled lines per recorded offset

std::ofstream open_spill_file(const std::string& path) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw std::runtime_error("--journal-file " + path + ": cannot be written");
  return file;
}

}  // namespace

JournalStore::JournalStore(JournalLimits limits, std::shared_ptr<KeyTables> shared,
                           std::string id_prefix)
    : limits_(std::move(limits)),
      codec_(shared ? std::move(shared) : std::make_shared<KeyTables>(), std::move(id_prefix)) {
  if (limits_.spill_file) spill_ = open_spill_file(*limits_.spill_file);
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

std::string JournalStore::json_text(std::size_t index) const {
  nlohmann::json json(entry_at(index));
  if (extra_) extra_(moved_out() + index + 1, json);
  return compact_json(json);
}

void JournalStore::move_out(std::size_t entries) {
  if (entries == 0) return;
  if (limits_.spill_file) {
    for (std::size_t i = 0; i < entries; ++i) {
      if ((spilled_ + i) % kBlock == 0)
        block_offsets_.push_back(static_cast<std::uint64_t>(spill_.tellp()));
      spill_ << json_text(i) << '\n';
    }
    spill_.flush();  // a reader opens the file on its own
  }
  for (std::size_t i = 0; i < entries; ++i) {
    const JournalRecord& record = records_[i];
    if (record.whole) whole_.erase(moved_out() + i + 1);
    codec_.release(record);
  }
  (limits_.spill_file ? spilled_ : dropped_) += entries;
  records_.erase(records_.begin(), records_.begin() + static_cast<std::ptrdiff_t>(entries));
}

std::vector<std::string> JournalStore::spilled_lines(std::uint64_t after, std::size_t limit) const {
  std::vector<std::string> lines;
  if (after >= spilled_) return lines;
  const std::uint64_t last =
      limit == 0 ? spilled_ : std::min<std::uint64_t>(spilled_, after + limit);
  std::ifstream file(*limits_.spill_file, std::ios::binary);
  const std::uint64_t block = after / kBlock;
  file.seekg(static_cast<std::streamoff>(block_offsets_[block]));
  std::string line;
  for (std::uint64_t seq = block * kBlock + 1; seq <= last && std::getline(file, line); ++seq) {
    if (seq > after) lines.push_back(std::move(line));
  }
  if (lines.size() != last - after) {
    throw std::runtime_error("the journal file " + *limits_.spill_file + " was cut short");
  }
  return lines;
}

std::vector<JournalEntry> JournalStore::read(std::uint64_t after, std::size_t limit) const {
  after = std::max(after, dropped_);
  std::vector<JournalEntry> entries;
  for (const std::string& line : spilled_lines(after, limit)) {
    entries.push_back(nlohmann::json::parse(line).get<JournalEntry>());
  }
  const std::uint64_t from = std::max(after, moved_out()) - moved_out();  // index in memory
  for (std::size_t i = from; i < records_.size() && (limit == 0 || entries.size() < limit); ++i) {
    entries.push_back(entry_at(i));
  }
  return entries;
}

std::string JournalStore::text(std::uint64_t after, std::size_t limit) const {
  after = std::max(after, dropped_);
  std::string joined;
  std::size_t taken = 0;
  for (const std::string& line : spilled_lines(after, limit)) {
    if (taken++ > 0) joined += ',';
    joined += line;
  }
  const std::uint64_t from = std::max(after, moved_out()) - moved_out();
  for (std::size_t i = from; i < records_.size() && taken < limit; ++i) {
    if (taken++ > 0) joined += ',';
    joined += json_text(i);
  }
  return joined;
}

std::vector<JournalEntry> JournalStore::memory() const {
  std::vector<JournalEntry> entries;
  entries.reserve(records_.size());
  for (std::size_t i = 0; i < records_.size(); ++i)
    entries.push_back(entry_at(i));
  return entries;
}

void JournalStore::clear() {
  for (const JournalRecord& record : records_)
    codec_.release(record);
  records_.clear();
  whole_.clear();
  spilled_ = dropped_ = 0;
  block_offsets_.clear();
  if (limits_.spill_file) spill_ = open_spill_file(*limits_.spill_file);
}

}  // namespace retryproof::provider
