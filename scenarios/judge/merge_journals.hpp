// Several journals judged as one fleet: one proxy per service instance, as sidecars run, each
// journals the requests of its own instance. Their entries are merged into one journal in time
// order and renumbered, and each remembers where it came from, so that a report's "seq 14"
// can be followed back to "journal 2 seq 7".
#pragma once

#include <string>
#include <vector>

#include "provider/journal.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/judge/traffic.hpp"

namespace retryproof::scenarios {

struct SourcedJournal {
  std::string file;  // for messages and the report
  std::vector<provider::JournalEntry> entries;
  std::vector<provider::MissingEntries> missing = {};  // what it lacks, by its own seqs
  std::optional<std::string> operation_field = {};     // what its server recorded, if it says
};

struct MergedJournal {
  std::vector<provider::JournalEntry> entries;  // seq 1, 2, ... in time order
  std::vector<EntryOrigin> origins;             // by seq - 1
};

// Entries in order of arrival (atMs); ties by the journal's place in the list, then by its
// own seq. Throws std::invalid_argument naming the file when two of its entries share a seq.
MergedJournal merge_journals(const std::vector<SourcedJournal>& journals);

// judge_traffic over the merged journal, with the files and origins the reports name, and
// the journals counted as the fleet's instances. One journal is judged as it is, its seqs
// its own.
ScenarioResult judge_journals(const std::vector<SourcedJournal>& journals,
                              const TrafficOptions& options);

}  // namespace retryproof::scenarios
