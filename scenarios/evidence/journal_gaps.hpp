// Verdicts judged from a journal that lacks entries (dropped past --journal-limit, lost to a
// failed spill write, cut short, or simply not there): nothing is judged whole that is not.
// A verdict that passed, or found nothing to judge, is inconclusive, since a missing request
// could have been the one it looks for; a failure stands only when every entry between the
// first and the last it cites is there (its proof is whole), and is inconclusive otherwise
// (the missing entry might have been the lookup it says never came).
#pragma once

#include <string>
#include <vector>

#include "provider/journal.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/evidence/verdicts.hpp"

namespace retryproof::scenarios {

// Entries one journal lacks: by its place among the journals judged (from 1) and its own seqs.
struct JournalGap {
  int journal = 1;
  provider::MissingEntries missing;
};

// "seqs 1-500 are missing from the journal (dropped: ...)"; among several journals,
// "journal 2: seq 3 is missing ...".
std::string gap_text(const JournalGap& gap, bool several_journals);

// Applies the rule above to each verdict. `origins` maps a merged journal's seqs (by seq - 1)
// back to each file's own; empty when the seqs are the journal's own.
void account_for_gaps(std::vector<Verdict>& verdicts, const std::vector<JournalGap>& gaps,
                      const std::vector<EntryOrigin>& origins);

}  // namespace retryproof::scenarios
