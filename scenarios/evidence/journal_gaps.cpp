#include "scenarios/evidence/journal_gaps.hpp"

#include <algorithm>
#include <map>

namespace retryproof::scenarios {
namespace {

// The first gap that lies inside the span a failure's evidence covers, in each journal's
// own seqs; null when its proof is whole.
const JournalGap* gap_within_proof(const Verdict& verdict, const std::vector<JournalGap>& gaps,
                                   const std::vector<EntryOrigin>& origins) {
  std::map<int, std::pair<std::uint64_t, std::uint64_t>> span;  // journal -> first, last seq
  for (const std::uint64_t seq : verdict.evidence) {
    EntryOrigin origin{1, seq};
    if (!origins.empty() && seq >= 1 && seq <= origins.size()) origin = origins[seq - 1];
    auto [found, added] = span.try_emplace(origin.journal, origin.seq, origin.seq);
    if (!added) {
      found->second.first = std::min(found->second.first, origin.seq);
      found->second.second = std::max(found->second.second, origin.seq);
    }
  }
  for (const JournalGap& gap : gaps) {
    const auto found = span.find(gap.journal);
    if (found == span.end()) continue;
    const auto [first, last] = found->second;
    if (gap.missing.from < last && gap.missing.to > first) return &gap;
  }
  return nullptr;
}

}  // namespace

std::string gap_text(const JournalGap& gap, bool several_journals) {
  const bool one = gap.missing.from == gap.missing.to;
  return (several_journals ? "journal " + std::to_string(gap.journal) + ": " : std::string()) +
         gap.missing.seqs_text() + (one ? " is" : " are") + " missing from the journal (" +
         gap.missing.why + ")";
}

void account_for_gaps(std::vector<Verdict>& verdicts, const std::vector<JournalGap>& gaps,
                      const std::vector<EntryOrigin>& origins) {
  if (gaps.empty()) return;
  const bool several = !origins.empty();
  for (Verdict& verdict : verdicts) {
    if (verdict.status == VerdictStatus::inconclusive) continue;
    if (verdict.status == VerdictStatus::fail) {
      const JournalGap* inside = gap_within_proof(verdict, gaps, origins);
      if (inside == nullptr) continue;  // the proof is whole: the failure stands
      verdict.explanation = "it failed (" + verdict.explanation + "), but " +
                            gap_text(*inside, several) +
                            " between the entries it cites, which could change it";
    } else {
      verdict.explanation =
          gap_text(gaps.front(), several) +
          (gaps.size() > 1 ? " (and " + std::to_string(gaps.size() - 1) + " more gaps)"
                           : std::string()) +
          ": a request it judges could be among them";
      verdict.evidence.clear();
    }
    verdict.status = VerdictStatus::inconclusive;
  }
}

}  // namespace retryproof::scenarios
