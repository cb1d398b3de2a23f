// A journal read back never passes for whole when it is not: what a document says it lacks
// (dropped, lost) and what it does not say (a seq removed, fewer entries than its count, a
// stream cut short) are all named, by seq.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "provider/journal.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;

json entry_json(std::uint64_t seq) {
  return json(JournalEntry{.seq = seq,
                           .at = Millis(seq),
                           .method = "POST",
                           .path = "/jobs",
                           .kind = RequestKind::create,
                           .key = "k",
                           .outcome = Outcome::replay,
                           .answered_at = Millis(seq + 1),
                           .status = 200});
}

json document(std::initializer_list<std::uint64_t> seqs, json fields = json::object()) {
  json entries = json::array();
  for (const std::uint64_t seq : seqs)
    entries.push_back(entry_json(seq));
  fields["entries"] = std::move(entries);
  if (!fields.contains("count")) fields["count"] = seqs.size();
  return fields;
}

std::vector<std::string> missing_texts(const json& written) {
  std::vector<std::string> texts;
  for (const MissingEntries& missing : journal_document_from_json(written).missing)
    texts.push_back(missing.seqs_text() + ": " + missing.why);
  return texts;
}

TEST(JournalDocument, AWholeJournalLacksNothing) {
  EXPECT_TRUE(missing_texts(document({1, 2, 3, 4, 5}, {{"complete", true}})).empty());
  EXPECT_TRUE(missing_texts(json::array({entry_json(1), entry_json(2)})).empty());
  EXPECT_EQ(journal_document_from_json(document({2, 1})).entries.front().seq, 1u);
}

TEST(JournalDocument, ASeqRemovedIsNamed) {
  EXPECT_EQ(missing_texts(document({1, 2, 4, 5}, {{"count", 4}})),
            std::vector<std::string>{"seq 3: not in the journal"});
  EXPECT_EQ(missing_texts(json::array({entry_json(2)})),
            std::vector<std::string>{"seq 1: not in the journal"});
}

TEST(JournalDocument, FewerEntriesThanItsCountIsACutJournal) {
  const auto texts = missing_texts(document({1, 2}, {{"count", 5}}));
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0].substr(0, 18), "seqs from 3 on: th") << texts[0];
  EXPECT_EQ(missing_texts(document({1, 2}, {{"complete", false}})).size(), 1u);
}

TEST(JournalDocument, DroppedAndLostEntriesAreNamedOnceEach) {
  EXPECT_EQ(missing_texts(document({3, 4}, {{"dropped", 2}})),
            std::vector<std::string>{"seqs 1-2: dropped: the provider kept at most "
                                     "--journal-limit entries, and no --journal-file"});
  EXPECT_EQ(
      missing_texts(document({1, 2, 5}, {{"lost", 2}, {"lostSeqs", {{3, 4}}}})),
      std::vector<std::string>{"seqs 3-4: lost: a write to the provider's --journal-file failed"});
}

TEST(JournalDocument, WhatItSaysOfItselfMustBeWellFormed) {
  EXPECT_THROW(journal_document_from_json(document({1}, {{"lostSeqs", {{4, 3}}}})),
               std::invalid_argument);
  EXPECT_THROW(journal_document_from_json(document({1}, {{"complete", "yes"}})),
               std::invalid_argument);
  EXPECT_THROW(journal_document_from_json(document({1}, {{"dropped", -1}})), std::invalid_argument);
}

}  // namespace
}  // namespace retryproof::provider
