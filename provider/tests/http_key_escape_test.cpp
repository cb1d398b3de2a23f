// Keys are bytes a client chose: over a real socket, what the log, /_test/jobs and
// /_test/journal show of keys with control bytes, quotes, bytes that are not UTF-8, and of
// lookups whose key holds CR or LF (docs/provider.md, *Keys as bytes*).
#include <gtest/gtest.h>
#include <httplib.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "provider/journal.hpp"
#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::ReadUntil;
using testing::status_of;

class KeysAsBytes : public ::testing::Test {
 protected:
  ProviderConfig config() {
    ProviderConfig config;
    config.log = [this](const std::string& line) {
      std::lock_guard lock(mutex_);
      lines_.push_back(line);
    };
    return config;
  }

  std::vector<std::string> log_lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

  std::string send(const std::string& request) {
    return raw_exchange(server.port(), request, ReadUntil::closed).received;
  }

  std::string get(const std::string& target) {
    return send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                "\r\nConnection: close\r\n\r\n");
  }

  // The whole journal as the control plane streams it (chunked), parsed.
  json whole_journal() {
    httplib::Client client("127.0.0.1", server.port());
    const auto result = client.Get("/_test/journal");
    if (!result || result->status != 200) return nullptr;
    return json::parse(result->body, nullptr, false);
  }

  std::mutex mutex_;
  std::vector<std::string> lines_;
  ProviderServer server{config(), {.port = 0}};
};

TEST_F(KeysAsBytes, TheLogQuotesALookupKeyAndEscapesItsControlBytes) {
  // ESC [2J clears a terminal, NUL and BS hide text, CR LF would start a forged line.
  const std::string raw = get("/jobs/by-idempotency-key/a%1B%5B2J%00%08%0D%0A[provider]%20key=x");
  EXPECT_EQ(status_of(raw), 404) << raw;
  const std::vector<std::string> expected{
      R"([provider] key="a\x1B[2J\x00\x08\x0D\x0A[provider] key=x" LOOKUP miss)"};
  EXPECT_EQ(log_lines(), expected);
}

TEST_F(KeysAsBytes, AQuoteInAKeyCannotForgeALogField) {
  EXPECT_EQ(status_of(send(raw_post_jobs(R"(k" NEW fault=commit-then-drop)", "{}"))), 201);
  const std::vector<std::string> expected{
      R"([provider] key="k\" NEW fault=commit-then-drop" NEW fault=none)"};
  EXPECT_EQ(log_lines(), expected);
}

TEST_F(KeysAsBytes, KeysThatAreNotUtf8StayDistinctInJobsAndJournal) {
  EXPECT_EQ(status_of(send(raw_post_jobs("k\xFF", "{}"))), 201);
  EXPECT_EQ(status_of(send(raw_post_jobs("k\xFE", "{}"))), 201);
  EXPECT_EQ(server.core().job_count(), 2u);

  const std::string jobs = body_of(get("/_test/jobs"));
  EXPECT_NE(jobs.find(R"("key":"k\\xFF","keyEscaped":true)"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(R"("key":"k\\xFE","keyEscaped":true)"), std::string::npos) << jobs;
  EXPECT_EQ(jobs.find("\xEF\xBF\xBD"), std::string::npos) << "U+FFFD in " << jobs;

  const json journal = whole_journal();
  ASSERT_TRUE(journal.is_object());
  ASSERT_EQ(journal["entries"].size(), 2u);
  EXPECT_EQ(journal["entries"][0]["key"], "k\\xFF");
  EXPECT_EQ(journal["entries"][1]["key"], "k\\xFE");
  EXPECT_EQ(journal["entries"][0]["keyEscaped"], true);
  EXPECT_EQ(log_lines()[0], R"([provider] key="k\xFF" NEW fault=none)");
}

TEST_F(KeysAsBytes, AUtf8KeyIsByteIdenticalOnTheWire) {
  const std::string key = "caf\xC3\xA9-\xF0\x9F\x98\x80 \\x41";  // café-😀 and a backslash
  EXPECT_EQ(status_of(send(raw_post_jobs(key, "{}"))), 201);
  const std::string jobs = body_of(get("/_test/jobs"));
  EXPECT_NE(jobs.find(R"("key":"caf)"
                      "\xC3\xA9-\xF0\x9F\x98\x80"
                      R"( \\x41")"),
            std::string::npos)
      << jobs;
  EXPECT_EQ(jobs.find("keyEscaped"), std::string::npos) << jobs;
  const json journal = whole_journal();
  ASSERT_TRUE(journal.is_object());
  EXPECT_EQ(journal["entries"][0]["key"], key);
  EXPECT_FALSE(journal["entries"][0].contains("keyEscaped"));
}

TEST_F(KeysAsBytes, TheWholeJournalStreamsAndReadsBackAPathThatIsNotUtf8) {
  EXPECT_EQ(status_of(get("/jobs/by-idempotency-key/x%FF")), 404);
  EXPECT_EQ(status_of(send(raw_post_jobs("after", "{}"))), 201);
  const json journal = whole_journal();  // was cut after its first chunk: dump() threw
  ASSERT_TRUE(journal.is_object());
  ASSERT_EQ(journal["entries"].size(), 2u);
  EXPECT_EQ(journal["entries"][0]["path"], "/jobs/by-idempotency-key/x\\xFF");
  EXPECT_EQ(journal["entries"][0]["pathEscaped"], true);
  // Read back, the entry has the bytes the client sent.
  const std::vector<JournalEntry> entries = journal_from_json(journal);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].key, "x\xFF");
  EXPECT_EQ(entries[0].path, "/jobs/by-idempotency-key/x\xFF");
  EXPECT_EQ(entries[0].kind, RequestKind::lookup);
}

TEST_F(KeysAsBytes, ALookupWithAPercentEncodedCrLfIsJournaledAsALookup) {
  EXPECT_EQ(status_of(send(raw_post_jobs("a", "{}"))), 201);
  EXPECT_EQ(status_of(get("/jobs/by-idempotency-key/a%0D%0Ab")), 404);
  const std::vector<JournalEntry> journal = server.core().journal();
  ASSERT_EQ(journal.size(), 2u);
  EXPECT_EQ(journal[1].kind, RequestKind::lookup);
  EXPECT_EQ(journal[1].key, "a\r\nb");
  EXPECT_EQ(journal[1].outcome, Outcome::lookup_miss);
  EXPECT_EQ(log_lines().back(), R"([provider] key="a\x0D\x0Ab" LOOKUP miss)");
}

TEST_F(KeysAsBytes, ALookupWithARawCrIsJournaledAndRefused) {
  const std::string raw = get("/jobs/by-idempotency-key/a\rb");
  EXPECT_EQ(status_of(raw), 400) << raw;
  EXPECT_EQ(json::parse(body_of(raw), nullptr, false)["error"], "bad_request") << raw;
  const std::vector<JournalEntry> journal = server.core().journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0].kind, RequestKind::lookup);
  EXPECT_EQ(journal[0].key, "a\rb");
  EXPECT_EQ(journal[0].outcome, Outcome::invalid);
  EXPECT_EQ(journal[0].status, 400);
  EXPECT_TRUE(journal[0].delivered());
  EXPECT_EQ(log_lines().back(), R"([provider] key="a\x0Db" REJECTED (malformed request line))");
}

TEST_F(KeysAsBytes, ALookupWithARawLfIsJournaledAsTheServerReadItAndRefused) {
  // The LF ends the request line: the server reads "GET /jobs/by-idempotency-key/a", with no
  // version, and journals that, refused.
  const std::string raw = get("/jobs/by-idempotency-key/a\nb");
  EXPECT_EQ(status_of(raw), 400) << raw;
  const std::vector<JournalEntry> journal = server.core().journal();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal[0].kind, RequestKind::lookup);
  EXPECT_EQ(journal[0].path, "/jobs/by-idempotency-key/a");
  EXPECT_EQ(journal[0].outcome, Outcome::invalid);
  EXPECT_EQ(journal[0].status, 400);
}

TEST_F(KeysAsBytes, AControlCallWithARawControlByteIsRefusedAndNotJournaled) {
  // The guard (403: the request line is all that was read, so no Host) or the core (400).
  const std::string raw = get("/_test/reset\x1B");
  EXPECT_TRUE(status_of(raw) == 400 || status_of(raw) == 403) << raw;
  EXPECT_TRUE(server.core().journal().empty());
}

}  // namespace
}  // namespace retryproof::provider
