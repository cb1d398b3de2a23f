// The provider's error codes: every answer journals the code it was written from, whatever
// status its shape sends it with; a journal record packs it; a proxy reads it back from a
// body; and what a code means never depends on the status it was sent with.
#include "provider/error_codes.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "core_test_support.hpp"
#include "provider/journal_record.hpp"
#include "provider/responses.hpp"

namespace retryproof::provider {
namespace {

using namespace testing;
using nlohmann::json;

// An API in AWS's JSON protocol's manner: every code under another status than the
// provider's own (AWS throttles with a 400 ThrottlingException), its errors {"__type",
// "message"}.
const json kAwsLike = json::parse(R"({
  "name": "aws-like",
  "errors": {"template": {"__type": "{code}", "message": "{message}"}, "codes": {
    "rate_limited": {"status": 400, "code": "ThrottlingException"},
    "temporarily_unavailable": {"status": 500, "code": "ServiceUnavailable"},
    "internal_error": {"status": 503, "code": "InternalFailure"},
    "idempotency_key_in_flight": {"status": 400, "code": "OperationInProgress"},
    "idempotency_key_reused_with_different_payload": {"status": 409, "code": "IdempotentParameterMismatch"},
    "idempotency_key_required": {"status": 422, "code": "MissingToken"},
    "idempotency_key_invalid": {"status": 422, "code": "InvalidToken"},
    "invalid_json": {"status": 415, "code": "SerializationException"},
    "not_found": {"status": 400, "code": "ResourceNotFoundException"},
    "capacity_exhausted": {"status": 429, "code": "LimitExceededException"}}}
})");

struct CodeCase {
  std::string code;
  // Makes the core answer with the code; its last journal entry is that answer.
  std::function<void(ProviderCore&)> provoke;
};

std::vector<CodeCase> code_cases() {
  return {
      {"rate_limited",
       [](ProviderCore& core) {
         install(core, {"rate-limited"});
         post(core, "k", kOrder42);
       }},
      {"temporarily_unavailable",
       [](ProviderCore& core) {
         install(core, {"fail-before-commit"});
         post(core, "k", kOrder42);
       }},
      {"internal_error",
       [](ProviderCore& core) {
         install(core, {"commit-then-500"});
         post(core, "k", kOrder42);
       }},
      {"idempotency_key_in_flight",
       [](ProviderCore& core) {
         install(core, {"delay-before-commit:1s"});
         post(core, "k", kOrder42);
         post(core, "k", kOrder42, Millis{10});
       }},
      {"idempotency_key_reused_with_different_payload",
       [](ProviderCore& core) {
         post(core, "k", kOrder42);
         post(core, "k", R"({"orderId":"order-43"})");
       }},
      {"idempotency_key_required", [](ProviderCore& core) { post_without_key(core, kOrder42); }},
      {"idempotency_key_invalid", [](ProviderCore& core) { post(core, "bad\nkey", kOrder42); }},
      {"invalid_json", [](ProviderCore& core) { post(core, "k", "[1]"); }},
      {"not_found", [](ProviderCore& core) { lookup(core, "nobody"); }},
      {"capacity_exhausted",
       [](ProviderCore& core) {
         post(core, "k1", kOrder42);
         post(core, "k2", kOrder42);
       }},
  };
}

// The status the shape sends the code with: its restatement's, else the provider's own.
int status_under(const ApiShape& shape, const std::string& code) {
  const auto restated = shape.error_overrides.find(code);
  if (restated != shape.error_overrides.end() && restated->second.status)
    return *restated->second.status;
  return error_code_row(code)->status;
}

void expect_every_code_journaled(const ApiShape& shape) {
  for (const CodeCase& test : code_cases()) {
    ProviderConfig config = config_with(7);
    config.api = shape;
    config.max_keys = 1;
    ProviderCore core(config);
    test.provoke(core);
    const auto entries = core.journal();
    ASSERT_FALSE(entries.empty()) << test.code;
    const JournalEntry& answer = entries.back();
    EXPECT_EQ(answer.code, test.code) << shape.name;
    EXPECT_EQ(answer.status, status_under(shape, test.code)) << shape.name << " " << test.code;
    // Its meaning is the code's, whatever the status.
    EXPECT_EQ(meaning_of_answer(answer.code, answer.status), error_code_row(test.code)->meaning)
        << shape.name << " " << test.code;
    // The JSON edge carries it, and reads it back.
    json as_json = answer;
    EXPECT_EQ(as_json["code"], test.code);
    EXPECT_EQ(as_json.get<JournalEntry>(), answer);
  }
}

TEST(ErrorCodes, EveryAnswerJournalsItsCodeUnderTheProvidersOwnStatuses) {
  expect_every_code_journaled(jobs_shape());
}

TEST(ErrorCodes, EveryAnswerJournalsItsCodeUnderAShapeThatSendsEachWithAnotherStatus) {
  const ApiShape aws = api_shape_from_json(kAwsLike, "aws-like.json");
  for (const CodeCase& test : code_cases()) {
    EXPECT_NE(status_under(aws, test.code), status_under(jobs_shape(), test.code)) << test.code;
  }
  expect_every_code_journaled(aws);
}

TEST(ErrorCodes, ASuccessJournalsNoCode) {
  ProviderCore core(config_with(7));
  post(core, "k", kOrder42);
  post(core, "k", kOrder42);  // a replay
  for (const JournalEntry& entry : core.journal())
    EXPECT_EQ(entry.code, std::nullopt);
  json as_json = core.journal().front();
  EXPECT_FALSE(as_json.contains("code"));
}

// A journal without codes (saved before they existed) reads as the provider's own statuses
// say: each code's status, read alone, means what the code means.
TEST(ErrorCodes, AStatusReadAloneMeansWhatTheCodeItIsSentForMeans) {
  for (const ErrorCodeRow& row : error_code_table()) {
    if (!row.restatable || row.code == "capacity_exhausted" || row.meaning == Meaning::other)
      continue;  // 507 at --max-keys is retryable by its code only
    EXPECT_EQ(meaning_of_answer(std::nullopt, row.status), row.meaning) << row.code;
  }
  EXPECT_EQ(meaning_of_answer(std::nullopt, 201), Meaning::success);
  EXPECT_EQ(meaning_of_answer(std::nullopt, 502), Meaning::server_error);
  EXPECT_EQ(meaning_of_answer(std::nullopt, 418), Meaning::other);
  // A code this version does not know is read by its status.
  EXPECT_EQ(meaning_of_answer("a_later_code", 429), Meaning::rate_limited);
}

TEST(ErrorCodes, TheRecordPacksTheFirstFifteenAndKeepsAnEntryWithAnotherWhole) {
  JournalCodec codec(std::make_shared<KeyTables>(), "job_");
  const auto& table = error_code_table();
  const auto refused_with = [](std::string_view code) {
    return JournalEntry{.seq = 1,
                        .at = Millis{0},
                        .method = "POST",
                        .path = "/jobs",
                        .kind = RequestKind::create,
                        .outcome = Outcome::invalid,
                        .answered_at = Millis{0},
                        .status = 400,
                        .code = std::string(code)};
  };
  for (std::size_t i = 0; i < table.size(); ++i) {
    const JournalEntry entry = refused_with(table[i].code);
    const std::optional<JournalRecord> record = codec.pack(entry);
    EXPECT_EQ(record.has_value(), i < 15) << table[i].code;
    if (record) {
      EXPECT_EQ(codec.unpack(*record, 1), entry) << table[i].code;
    }
  }
  // An unknown code (a saved journal of a later version) keeps its entry whole.
  EXPECT_FALSE(codec.pack(refused_with("a_later_code")).has_value());
  // A held request's answer brings its code later.
  JournalEntry held = refused_with("rate_limited");
  held.code.reset();
  held.answered_at.reset();
  held.status.reset();
  std::optional<JournalRecord> record = codec.pack(held);
  ASSERT_TRUE(record);
  held.answered_at = Millis{5};
  held.status = 503;
  held.code = "temporarily_unavailable";
  ASSERT_TRUE(JournalCodec::pack_answer(*record, held));
  EXPECT_EQ(codec.unpack(*record, 1), held);
  held.code = "upstream_tls_error";  // past the fifteenth: the record is left as it was
  EXPECT_FALSE(JournalCodec::pack_answer(*record, held));
  EXPECT_EQ(codec.unpack(*record, 1).code, "temporarily_unavailable");
  EXPECT_EQ(sizeof(JournalRecord), 48U);
}

TEST(ErrorCodes, AnAnswersCodeIsReadBackFromItsBodyThroughTheShape) {
  const ApiShape aws = api_shape_from_json(kAwsLike, "aws-like.json");
  const ErrorStyle aws_errors{.shape = &aws, .format = error_format_of(aws)};
  const Decision throttled = aws_errors.error(429, "rate_limited", "slow down");
  EXPECT_EQ(throttled.status, 400);
  EXPECT_EQ(json::parse(throttled.body)["__type"], "ThrottlingException");
  EXPECT_EQ(aws_errors.code_of(throttled.status, throttled.body), "rate_limited");
  EXPECT_EQ(aws_errors.code_of(400, R"({"__type":"ResourceNotFoundException"})"), "not_found");
  EXPECT_EQ(aws_errors.code_of(400, R"({"__type":"AccessDeniedException"})"), std::nullopt);
  EXPECT_EQ(aws_errors.code_of(200, R"({"__type":"ThrottlingException"})"), std::nullopt);
  EXPECT_EQ(aws_errors.code_of(400, "not json"), std::nullopt);

  // The provider's own form, and Stripe's, whose in-flight code is its own name.
  const ErrorStyle plain{};
  EXPECT_EQ(plain.code_of(503, R"({"error":"temporarily_unavailable"})"),
            "temporarily_unavailable");
  const ErrorStyle stripe{.shape = &stripe_shape(), .format = error_format_of(stripe_shape())};
  const Decision in_use = stripe.error(409, "idempotency_key_in_flight");
  EXPECT_EQ(stripe.code_of(in_use.status, in_use.body), "idempotency_key_in_flight");
  EXPECT_EQ(stripe.code_of(404, R"({"error":{"code":"resource_missing"}})"), "not_found");
}

TEST(ErrorCodes, ACodeTwoRowsSendAlikeIsToldApartByItsStatusOrNotAtAll) {
  const ApiShape shape = api_shape_from_json(json::parse(R"({"errors": {"codes": {
    "invalid_json": {"status": 400, "code": "ValidationException"},
    "idempotency_key_invalid": {"status": 422, "code": "ValidationException"},
    "idempotency_key_required": {"status": 422, "code": "ValidationException"}}}})"),
                                             "shape.json");
  const ErrorStyle errors{.shape = &shape, .format = error_format_of(shape)};
  EXPECT_EQ(errors.code_of(400, R"({"error":"ValidationException"})"), "invalid_json");
  EXPECT_EQ(errors.code_of(422, R"({"error":"ValidationException"})"), std::nullopt);
}

}  // namespace
}  // namespace retryproof::provider
