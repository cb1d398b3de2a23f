// The journal's compact record: every field of an entry, and every absent one, reads back as
// it was appended (and through JSON, closeNotify); methods, paths and keys come back byte for byte
// however unusual; a value too wide for the record keeps its entry whole rather than changing it;
// and an entry that moves out lets go of what it held.
#include "provider/journal_record.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/fingerprint.hpp"
#include "provider/fault.hpp"
#include "provider/journal_store.hpp"

namespace retryproof::provider {
namespace {

const std::string kFingerprint = sha256_hex("payload");

JournalEntry full_entry() {
  return JournalEntry{.seq = 1,
                      .at = Millis(1'000),
                      .method = "POST",
                      .path = "/jobs",
                      .kind = RequestKind::create,
                      .key = "order/42",
                      .fingerprint = kFingerprint,
                      .operation = "order-42",
                      .outcome = Outcome::new_operation,
                      .fault = Fault{.kind = FaultKind::commit_then_delay, .duration = Millis(250)},
                      .answered_at = Millis(1'250),
                      .abandoned_at = Millis(1'100),
                      .delivery = Delivery::truncate,
                      .status = 201,
                      .retry_after_seconds = 7,
                      .job_id = "job_0a1b2c3d",
                      .client_port = 65535,
                      .new_connection = true,
                      .close_notify = true};
}

JournalEntry bare_entry() {
  return JournalEntry{.seq = 1, .at = Millis(5), .method = "GET", .path = "/"};
}

// The entry as the store gives it back, and whether the store packed it.
struct RoundTrip {
  JournalEntry entry;
  bool packed = false;
};
RoundTrip round_trip(const JournalEntry& entry, const std::string& prefix = "job_") {
  JournalStore journal({}, {}, prefix);
  journal.append(entry);
  return {journal.read(0).at(0), journal.kept_whole() == 0};
}

TEST(JournalRecord, EveryFieldAndEveryAbsentOneReadsBack) {
  for (const JournalEntry& entry : {full_entry(), bare_entry()}) {
    const RoundTrip back = round_trip(entry);
    EXPECT_EQ(back.entry, entry) << nlohmann::json(entry).dump();
    EXPECT_TRUE(back.packed);
  }
}

TEST(JournalRecord, EveryKindOutcomeDeliveryAndFaultReadsBack) {
  JournalEntry entry = full_entry();
  for (const RequestKind kind :
       {RequestKind::create, RequestKind::lookup, RequestKind::control, RequestKind::other}) {
    entry.kind = kind;
    EXPECT_EQ(round_trip(entry).entry, entry);
  }
  for (int outcome = 0; outcome <= static_cast<int>(Outcome::outage); ++outcome) {
    entry.outcome = static_cast<Outcome>(outcome);
    EXPECT_EQ(round_trip(entry).entry, entry) << outcome;
  }
  for (const Delivery delivery :
       {Delivery::respond, Delivery::drop, Delivery::reset, Delivery::truncate}) {
    entry.delivery = delivery;
    EXPECT_EQ(round_trip(entry).entry, entry);
  }
  for (const std::optional<bool> sent : {std::optional<bool>(), std::optional<bool>(false)}) {
    entry.close_notify = sent;  // plain HTTP, and a TLS stream that ended without one
    const RoundTrip back = round_trip(entry);
    EXPECT_EQ(back.entry, entry);
    EXPECT_TRUE(back.packed);
  }
  for (const FaultRow& row : fault_catalogue()) {
    Fault fault{.kind = row.kind};
    if (row.parameter == FaultParameter::hold) fault.duration = Millis(1'234);
    if (row.parameter == FaultParameter::retry_after) fault.retry_after_seconds = 9;
    entry.fault = fault;
    const RoundTrip back = round_trip(entry);
    EXPECT_EQ(back.entry, entry) << row.name;
    EXPECT_TRUE(back.packed) << row.name;
  }
}

TEST(JournalRecord, ACloseNotifySentAfterTheAnswerIsRecordedInPlace) {
  JournalStore journal;
  JournalEntry entry = bare_entry();
  entry.close_notify = false;  // over TLS, until the server says it sent one
  journal.append(entry);
  journal.close_notify_sent(1);
  EXPECT_EQ(journal.read(0).at(0).close_notify, true);
  EXPECT_EQ(journal.kept_whole(), 0u);
}

// The JSON edge: the field written as it is held, read back as written, absent in journals
// saved before it existed.
TEST(JournalJson, CloseNotifyReadsBackAsItWasAndMayBeAbsent) {
  for (const std::optional<bool> sent :
       {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
    JournalEntry entry{.seq = 1, .at = Millis(5), .method = "POST", .path = "/jobs"};
    entry.close_notify = sent;
    const nlohmann::json written = entry;
    EXPECT_EQ(written.at("closeNotify"), sent ? nlohmann::json(*sent) : nlohmann::json(nullptr));
    EXPECT_EQ(written.get<JournalEntry>(), entry);
  }
  nlohmann::json saved_before =
      JournalEntry{.seq = 1, .at = Millis(5), .method = "GET", .path = "/"};
  saved_before.erase("closeNotify");
  EXPECT_FALSE(saved_before.get<JournalEntry>().close_notify);
  saved_before["closeNotify"] = "yes";
  EXPECT_THROW(saved_before.get<JournalEntry>(), std::invalid_argument);
}

TEST(JournalRecord, UnusualMethodsPathsAndKeysComeBackByteForByte) {
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"PROPFIND", "/jobs"},
      {"", ""},
      {std::string(255, 'M'), "/jobs"},
      {"get", "/jobs/by-idempotency-key/k"},                     // a method's case kept
      {"GET", "/JOBS/by-idempotency-key/k"},                     // a path's case kept
      {"GET", "/jobs/by-idempotency-key/a%2Fb"},                 // the key "a/b", encoded
      {"GET", "/jobs/by-idempotency-key/\xff\xfe"},              // a key that is not UTF-8
      {"GET", "/jobs/by-idempotency-key/xk"},                    // ends with the key, no '/'
      {"GET", std::string("/jobs/by-idempotency-key/\0k", 27)},  // a NUL byte
  };
  for (const auto& [method, path] : lines) {
    JournalEntry entry = bare_entry();
    entry.method = method;
    entry.path = path;
    entry.kind = RequestKind::lookup;
    entry.key = path.ends_with("a%2Fb") ? "a/b" : path.substr(path.rfind('/') + 1);
    if (path.ends_with("xk")) entry.key = "k";
    const RoundTrip back = round_trip(entry);
    EXPECT_EQ(back.entry, entry) << method << " " << path;
    EXPECT_TRUE(back.packed) << method << " " << path;
  }
}

TEST(JournalRecord, AValueTooWideForTheRecordKeepsItsEntryWholeAndUnchanged) {
  std::vector<JournalEntry> wide(10, full_entry());
  wide[0].method = std::string(256, 'M');
  wide[1].answered_at = Millis(999);                                      // before its arrival
  wide[2].abandoned_at = Millis(1'000) + Millis(INT64_C(5'000'000'000));  // past 49 days
  wide[3].fingerprint = "ABCDEF";                                         // not as we write it
  wide[4].job_id = "job_0A1B2C3D";                                        // upper-case digits
  wide[5].retry_after_seconds = 70'000;
  wide[6].fault = Fault{.kind = FaultKind::commit_then_drop, .duration = Millis(3)};
  wide[7].status = 1023;  // not three digits
  wide[8].fault = Fault{.kind = FaultKind::delay_before_commit, .duration = Millis(1 << 24)};
  wide[9].client_port = 65536;  // not a port
  for (const JournalEntry& entry : wide) {
    const RoundTrip back = round_trip(entry);
    EXPECT_EQ(back.entry, entry) << nlohmann::json(entry).dump();
    EXPECT_FALSE(back.packed) << nlohmann::json(entry).dump();
  }
}

// The connection a request came on fits beside the rest, and its largest values still do: the
// record stays 48 bytes.
TEST(JournalRecord, TheConnectionAndTheWidestValuesThatFitArePacked) {
  JournalEntry entry = full_entry();
  entry.status = 999;
  entry.fault = Fault{.kind = FaultKind::delay_before_commit, .duration = Millis((1 << 24) - 1)};
  for (const auto& [port, first] : {std::pair{1, false}, std::pair{65535, true}}) {
    entry.client_port = port;
    entry.new_connection = first;
    const RoundTrip back = round_trip(entry);
    EXPECT_EQ(back.entry, entry) << nlohmann::json(entry).dump();
    EXPECT_TRUE(back.packed);
  }
  const nlohmann::json written = full_entry();
  EXPECT_EQ(written.at("clientPort"), 65535);
  EXPECT_EQ(written.at("newConnection"), true);
  EXPECT_EQ(written.get<JournalEntry>(), full_entry());
  EXPECT_FALSE(nlohmann::json(bare_entry()).contains("clientPort"));
}

TEST(JournalRecord, JobIdsOfTheShapesPrefixAreHeldAsTheirValue) {
  JournalEntry entry = full_entry();
  entry.job_id = "pi_00000000";
  EXPECT_TRUE(round_trip(entry, "pi_").packed);
  EXPECT_EQ(round_trip(entry, "pi_").entry, entry);
  EXPECT_FALSE(round_trip(entry, "job_").packed) << "another prefix's id is kept whole";
  EXPECT_EQ(round_trip(entry, "job_").entry, entry);
}

TEST(JournalRecord, ARefusedEntryHoldsNothingAndAReleasedOneLetsGoOfAll) {
  const auto shared = std::make_shared<KeyTables>();
  JournalCodec codec(shared, "job_");
  JournalEntry wide = full_entry();
  wide.job_id = "other";
  EXPECT_FALSE(codec.pack(wide));
  EXPECT_EQ(shared->keys.size() + shared->digests.size() + codec.texts(), 0U);

  const std::optional<JournalRecord> first = codec.pack(full_entry());
  const std::optional<JournalRecord> second = codec.pack(full_entry());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(shared->keys.size(), 1U) << "two entries with one key hold it once";
  EXPECT_EQ(shared->digests.size(), 1U);
  EXPECT_EQ(codec.texts(), 2U);  // "POST /jobs" and the operation
  codec.release(*first);
  codec.release(*second);
  EXPECT_EQ(shared->keys.size() + shared->digests.size() + codec.texts(), 0U);
}

TEST(JournalRecord, AnAnswerTooWideForTheRecordKeepsTheEntryWholeFromThen) {
  JournalStore journal;
  JournalEntry held = full_entry();
  held.answered_at.reset();
  held.abandoned_at.reset();
  held.status.reset();
  journal.append(held);
  EXPECT_EQ(journal.kept_whole(), 0U);
  journal.answer(1, Decision{.status = 201, .headers = {{"Retry-After", "90000"}}}, Millis(2'000));
  EXPECT_EQ(journal.kept_whole(), 1U);
  const JournalEntry back = journal.read(0).at(0);
  EXPECT_EQ(back.retry_after_seconds, 90'000);
  EXPECT_EQ(back.answered_at, Millis(2'000));
  EXPECT_EQ(back.key, held.key);
}

}  // namespace
}  // namespace retryproof::provider
