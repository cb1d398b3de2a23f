#include "provider/journal_store.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

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

JournalStore::JournalStore(JournalLimits limits) : limits_(std::move(limits)) {
  if (limits_.spill_file) spill_ = open_spill_file(*limits_.spill_file);
}

void JournalStore::append(JournalEntry entry) {
  memory_.push_back(std::move(entry));
  if (!limits_.in_memory || memory_.size() <= *limits_.in_memory) return;
  // Half the limit at a time: erasing from the front of the vector is then amortised O(1)
  // per entry, and the vector stays what the judge's endpoint reads.
  const std::size_t keep = *limits_.in_memory / 2;
  const auto unanswered = std::find_if(memory_.begin(), memory_.end(),
                                       [](const JournalEntry& held) { return !held.answered(); });
  const auto movable = static_cast<std::size_t>(std::distance(memory_.begin(), unanswered));
  move_out(std::min(movable, memory_.size() - keep));
}

void JournalStore::move_out(std::size_t entries) {
  if (entries == 0) return;
  if (limits_.spill_file) {
    for (std::size_t i = 0; i < entries; ++i) {
      if (spilled_ % kBlock == 0)
        block_offsets_.push_back(static_cast<std::uint64_t>(spill_.tellp()));
      spill_ << compact_json(nlohmann::json(memory_[i])) << '\n';
      ++spilled_;
    }
    spill_.flush();  // a reader opens the file on its own
  } else {
    dropped_ += entries;
  }
  memory_.erase(memory_.begin(), memory_.begin() + static_cast<std::ptrdiff_t>(entries));
}

JournalEntry* JournalStore::in_memory(std::uint64_t seq) {
  if (seq <= moved_out() || seq >= next_seq()) return nullptr;
  return &memory_[seq - moved_out() - 1];
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
  for (std::size_t i = from; i < memory_.size() && (limit == 0 || entries.size() < limit); ++i) {
    entries.push_back(memory_[i]);
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
  for (std::size_t i = from; i < memory_.size() && taken < limit; ++i) {
    if (taken++ > 0) joined += ',';
    joined += compact_json(nlohmann::json(memory_[i]));
  }
  return joined;
}

void JournalStore::clear() {
  memory_.clear();
  spilled_ = dropped_ = 0;
  block_offsets_.clear();
  if (limits_.spill_file) spill_ = open_spill_file(*limits_.spill_file);
}

}  // namespace retryproof::provider
