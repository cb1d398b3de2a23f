#include "scenarios/judge/merge_journals.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

namespace retryproof::scenarios {
namespace {

using provider::JournalEntry;

struct Sourced {
  const JournalEntry* entry;
  int journal;  // from 1
};

void check_unique_seqs(const SourcedJournal& journal) {
  std::set<std::uint64_t> seen;
  for (const JournalEntry& entry : journal.entries) {
    if (!seen.insert(entry.seq).second) {
      throw std::invalid_argument(journal.file + ": two entries have seq " +
                                  std::to_string(entry.seq) +
                                  ": a journal numbers its requests once each");
    }
  }
}

std::string sizes_text(const std::vector<SourcedJournal>& journals) {
  std::string text;
  for (std::size_t i = 0; i < journals.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::string("journal ") + std::to_string(i + 1) + " " +
            journals[i].file + " (" + std::to_string(journals[i].entries.size()) + " requests)";
  }
  return text;
}

}  // namespace

MergedJournal merge_journals(const std::vector<SourcedJournal>& journals) {
  std::vector<Sourced> all;
  for (std::size_t i = 0; i < journals.size(); ++i) {
    check_unique_seqs(journals[i]);
    for (const JournalEntry& entry : journals[i].entries)
      all.push_back({&entry, static_cast<int>(i + 1)});
  }
  std::sort(all.begin(), all.end(), [](const Sourced& a, const Sourced& b) {
    return std::tie(a.entry->at, a.journal, a.entry->seq) <
           std::tie(b.entry->at, b.journal, b.entry->seq);
  });
  MergedJournal merged;
  for (const Sourced& sourced : all) {
    JournalEntry entry = *sourced.entry;
    merged.origins.push_back({sourced.journal, entry.seq});
    entry.seq = merged.entries.size() + 1;
    merged.entries.push_back(std::move(entry));
  }
  return merged;
}

ScenarioResult judge_journals(const std::vector<SourcedJournal>& journals,
                              const TrafficOptions& options) {
  TrafficOptions judged = options;
  for (std::size_t i = 0; i < journals.size(); ++i) {
    for (const provider::MissingEntries& missing : journals[i].missing)
      judged.gaps.push_back({static_cast<int>(i) + 1, missing});
  }
  if (journals.size() == 1) return judge_traffic(journals.front().entries, judged);
  MergedJournal merged = merge_journals(journals);
  judged.origins = merged.origins;
  ScenarioResult result = judge_traffic(merged.entries, judged);
  result.concurrency = static_cast<int>(journals.size());
  for (const SourcedJournal& journal : journals)
    result.journal_files.push_back(journal.file);
  result.origins = std::move(merged.origins);
  result.description += ". Merged from " + sizes_text(journals) +
                        " in time order; seqs are the merged journal's, and the timeline's "
                        "\"from\" column names each entry's journal and seq there.";
  return result;
}

}  // namespace retryproof::scenarios
