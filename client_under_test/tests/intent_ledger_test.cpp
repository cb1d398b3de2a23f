// The intent ledger: the same contract in memory and in SQLite, and for SQLite, what a
// crash, a second process and a bad file do to it.
#include "client_under_test/intent_ledger.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/temp_dir.hpp"

namespace retryproof::client {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

Intent full_intent(const std::string& operation_id) {
  Intent intent;
  intent.operation_id = operation_id;
  intent.idempotency_key = "key:" + operation_id;
  intent.action = "create";
  intent.target = "/jobs";
  intent.payload_fingerprint = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  intent.status = IntentStatus::confirmed;
  intent.job_id = "job_1a2b3c4d";
  intent.reason = "replayed";
  intent.attempts = 3;
  return intent;
}

// Runs `body` in a forked child and returns its wait status. The child never returns into
// GoogleTest: it ends with _exit (or a signal), so no destructor or atexit handler runs.
int run_in_child(const std::function<void()>& body) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) throw std::runtime_error("waitpid failed");
  return status;
}

// Direct access to the file, to plant what only a foreign writer or a hand edit could.
void execute_raw(const fs::path& file, const std::string& sql) {
  sqlite3* raw = nullptr;
  const int opened = sqlite3_open(file.c_str(), &raw);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> connection(raw, sqlite3_close_v2);
  if (opened != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(raw));
  char* error = nullptr;
  if (sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error(message);
  }
}

std::string runtime_error_message(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a std::runtime_error";
  return {};
}

// ---------------------------------------------------------------------------------------
// Statuses

TEST(IntentStatus, EveryStatusRoundTripsThroughItsName) {
  const std::vector<std::pair<IntentStatus, std::string>> expected{
      {IntentStatus::planned, "planned"},     {IntentStatus::sent, "sent"},
      {IntentStatus::confirmed, "confirmed"}, {IntentStatus::failed, "failed"},
      {IntentStatus::unknown, "unknown"},
  };
  for (const auto& [status, name] : expected) {
    EXPECT_EQ(to_string(status), name);
    EXPECT_EQ(parse_intent_status(name), status) << name;
  }
}

TEST(IntentStatus, AnUnknownNameThrowsInvalidArgument) {
  for (const std::string name : {"", "PLANNED", "confirmed ", "done", "unknown\n"}) {
    EXPECT_THROW(parse_intent_status(name), std::invalid_argument) << '"' << name << '"';
  }
}

// ---------------------------------------------------------------------------------------
// The contract both ledgers keep

struct LedgerKind {
  std::string name;
  std::function<std::unique_ptr<IntentLedger>(const fs::path& dir)> make;
};

class IntentLedgerContract : public ::testing::TestWithParam<LedgerKind> {
 protected:
  TempDir dir_;
  std::unique_ptr<IntentLedger> ledger_ = GetParam().make(dir_.path());
};

TEST_P(IntentLedgerContract, FindOfAnUnknownOperationIsNullopt) {
  EXPECT_EQ(ledger_->find("fulfillment:order-42"), std::nullopt);
  ledger_->save(full_intent("fulfillment:order-42"));
  EXPECT_EQ(ledger_->find("fulfillment:order-43"), std::nullopt);
}

TEST_P(IntentLedgerContract, EveryFieldRoundTrips) {
  const Intent intent = full_intent("fulfillment:order-42");
  ledger_->save(intent);
  EXPECT_EQ(ledger_->find(intent.operation_id), intent);
}

TEST_P(IntentLedgerContract, DefaultsRoundTrip) {
  Intent intent;
  intent.operation_id = "fulfillment:order-1";
  ledger_->save(intent);
  EXPECT_EQ(ledger_->find(intent.operation_id), intent);
}

TEST_P(IntentLedgerContract, EmptyStringsRoundTripAsEmpty) {
  const Intent intent{.operation_id = "op",
                      .idempotency_key = "",
                      .action = "",
                      .target = "",
                      .payload_fingerprint = "",
                      .status = IntentStatus::unknown,
                      .job_id = "",
                      .reason = "",
                      .attempts = 0};
  ledger_->save(intent);
  EXPECT_EQ(ledger_->find("op"), intent);
}

TEST_P(IntentLedgerContract, UnicodeQuotesAndSqlLookalikesRoundTripVerbatim) {
  const std::vector<std::string> ids{
      "x'); DROP TABLE intents;--",
      "fulfillment:commande-n°42 ✓ 注文 🚚",
      R"(quote ' double " backslash \ percent % underscore _)",
      "?1",
      "trailing space ",
      std::string("embedded\0nul", 12),
  };
  for (const auto& id : ids) {
    Intent intent = full_intent(id);
    intent.reason = "reason for " + id;
    intent.payload_fingerprint = id;
    ledger_->save(intent);
  }
  for (const auto& id : ids) {
    const auto found = ledger_->find(id);
    ASSERT_TRUE(found.has_value()) << id;
    EXPECT_EQ(found->operation_id, id);
    EXPECT_EQ(found->idempotency_key, "key:" + id);
    EXPECT_EQ(found->reason, "reason for " + id);
    EXPECT_EQ(found->payload_fingerprint, id);
  }
  // Matching is exact: no trimming, no pattern, no prefix.
  EXPECT_EQ(ledger_->find("trailing space"), std::nullopt);
  EXPECT_EQ(ledger_->find("embedded"), std::nullopt);
  EXPECT_EQ(ledger_->find("%"), std::nullopt);
}

TEST_P(IntentLedgerContract, SaveReplacesEveryFieldOfTheSameOperation) {
  Intent first = full_intent("fulfillment:order-42");
  first.status = IntentStatus::planned;
  first.job_id = "";
  first.attempts = 0;
  ledger_->save(first);

  const Intent second{.operation_id = "fulfillment:order-42",
                      .idempotency_key = "other-key",
                      .action = "cancel",
                      .target = "/jobs/job_1",
                      .payload_fingerprint = "ab",
                      .status = IntentStatus::failed,
                      .job_id = "job_ffffffff",
                      .reason = "validation",
                      .attempts = 2};
  ledger_->save(second);
  EXPECT_EQ(ledger_->find("fulfillment:order-42"), second);
}

TEST_P(IntentLedgerContract, OperationsAreIndependent) {
  const Intent a = full_intent("a");
  Intent b = full_intent("b");
  b.status = IntentStatus::sent;
  ledger_->save(a);
  ledger_->save(b);
  b.status = IntentStatus::failed;
  ledger_->save(b);
  EXPECT_EQ(ledger_->find("a"), a);
  EXPECT_EQ(ledger_->find("b"), b);
}

TEST_P(IntentLedgerContract, EveryStatusAndExtremeAttemptCountsRoundTrip) {
  const std::vector<IntentStatus> statuses{IntentStatus::planned, IntentStatus::sent,
                                           IntentStatus::confirmed, IntentStatus::failed,
                                           IntentStatus::unknown};
  const std::vector<int> attempts{0, 1, INT_MAX, -1, INT_MIN};
  for (const IntentStatus status : statuses) {
    for (const int count : attempts) {
      Intent intent = full_intent("op");
      intent.status = status;
      intent.attempts = count;
      ledger_->save(intent);
      EXPECT_EQ(ledger_->find("op"), intent) << to_string(status) << ' ' << count;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    BothLedgers, IntentLedgerContract,
    ::testing::Values(LedgerKind{"InMemory",
                                 [](const fs::path&) -> std::unique_ptr<IntentLedger> {
                                   return std::make_unique<InMemoryIntentLedger>();
                                 }},
                      LedgerKind{"Sqlite",
                                 [](const fs::path& dir) -> std::unique_ptr<IntentLedger> {
                                   return std::make_unique<SqliteIntentLedger>(dir /
                                                                               "intents.sqlite");
                                 }}),
    [](const ::testing::TestParamInfo<LedgerKind>& param_info) { return param_info.param.name; });

// ---------------------------------------------------------------------------------------
// SQLite only: durability, sharing, bad files

class SqliteIntentLedgerTest : public ::testing::Test {
 protected:
  TempDir dir_;
  fs::path file_ = dir_.path() / "intents.sqlite";
};

TEST_F(SqliteIntentLedgerTest, PersistsAcrossCloseAndReopen) {
  const Intent intent = full_intent("fulfillment:order-42");
  {
    SqliteIntentLedger ledger(file_);
    ledger.save(intent);
  }
  SqliteIntentLedger reopened(file_);
  EXPECT_EQ(reopened.find("fulfillment:order-42"), intent);
}

TEST_F(SqliteIntentLedgerTest, KeepsOneRowPerOperation) {
  {
    SqliteIntentLedger ledger(file_);
    Intent intent = full_intent("op");
    for (int attempt = 0; attempt < 5; ++attempt) {
      intent.attempts = attempt;
      ledger.save(intent);
    }
    ledger.save(full_intent("other"));
  }
  // Count in the file itself: find alone cannot tell an upsert from an append.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(file_.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  const std::unique_ptr<sqlite3, int (*)(sqlite3*)> connection(raw, sqlite3_close_v2);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT count(*) FROM intents", -1, &statement, nullptr),
            SQLITE_OK);
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(statement, sqlite3_finalize);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(statement, 0), 2);
}

TEST_F(SqliteIntentLedgerTest, TwoLedgersOnOneFileSeeEachOthersSaves) {
  SqliteIntentLedger first(file_);
  SqliteIntentLedger second(file_);

  Intent intent = full_intent("fulfillment:order-42");
  intent.status = IntentStatus::planned;
  first.save(intent);
  EXPECT_EQ(second.find("fulfillment:order-42"), intent);

  intent.status = IntentStatus::confirmed;
  second.save(intent);
  EXPECT_EQ(first.find("fulfillment:order-42"), intent);
}

TEST_F(SqliteIntentLedgerTest, CreatesMissingParentDirectories) {
  const fs::path nested = dir_.path() / "state" / "deeper" / "intents.sqlite";
  {
    SqliteIntentLedger ledger(nested);
    ledger.save(full_intent("op"));
  }
  EXPECT_TRUE(fs::is_regular_file(nested));
  SqliteIntentLedger reopened(nested);
  EXPECT_EQ(reopened.find("op"), full_intent("op"));
}

TEST_F(SqliteIntentLedgerTest, AGarbageFileThrowsNamingItAndIsLeftAlone) {
  const std::string garbage = "not a database";
  std::ofstream(file_) << garbage;

  const std::string message = runtime_error_message([&] { SqliteIntentLedger ledger(file_); });
  EXPECT_THAT(message, HasSubstr(file_.string()));
  EXPECT_THAT(message, HasSubstr("not a database"));

  std::ifstream in(file_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), garbage);
}

TEST_F(SqliteIntentLedgerTest, ADirectoryWhereTheFileShouldBeThrowsNamingIt) {
  fs::create_directory(file_);
  EXPECT_THAT(runtime_error_message([&] { SqliteIntentLedger ledger(file_); }),
              HasSubstr(file_.string()));
}

TEST_F(SqliteIntentLedgerTest, AParentThatIsAFileThrowsNamingTheLedger) {
  std::ofstream(dir_.path() / "state") << "a file";
  const fs::path file = dir_.path() / "state" / "intents.sqlite";
  EXPECT_THAT(runtime_error_message([&] { SqliteIntentLedger ledger(file); }),
              HasSubstr(file.string()));
}

TEST_F(SqliteIntentLedgerTest, AnUnreadableOrReadOnlyFileThrowsNamingIt) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads and writes any file";
  { SqliteIntentLedger ledger(file_); }
  for (const auto mode : {fs::perms::none, fs::perms::owner_read}) {
    fs::permissions(file_, mode);
    EXPECT_THAT(runtime_error_message([&] { SqliteIntentLedger ledger(file_); }),
                HasSubstr(file_.string()));
  }
  fs::permissions(file_, fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(SqliteIntentLedgerTest, ARowWithAnUnknownStatusThrowsNamingFileAndOperation) {
  {
    SqliteIntentLedger ledger(file_);
    ledger.save(full_intent("fulfillment:order-42"));
    ledger.save(full_intent("fulfillment:order-43"));
  }
  execute_raw(file_,
              "UPDATE intents SET status = 'done' WHERE operation_id = 'fulfillment:order-42'");

  SqliteIntentLedger ledger(file_);
  const std::string message = runtime_error_message([&] { ledger.find("fulfillment:order-42"); });
  EXPECT_THAT(message, HasSubstr(file_.string()));
  EXPECT_THAT(message, HasSubstr("fulfillment:order-42"));
  EXPECT_THAT(message, HasSubstr("done"));
  // The ledger stays usable for the other operations.
  EXPECT_EQ(ledger.find("fulfillment:order-43"), full_intent("fulfillment:order-43"));
}

TEST_F(SqliteIntentLedgerTest, AForeignIntentsTableThrowsNamingTheFile) {
  execute_raw(file_, "CREATE TABLE intents (id INTEGER PRIMARY KEY, note TEXT)");
  EXPECT_THAT(runtime_error_message([&] { SqliteIntentLedger ledger(file_); }),
              HasSubstr(file_.string()));
}

// ---------------------------------------------------------------------------------------
// Crashes and other processes

TEST_F(SqliteIntentLedgerTest, ASaveSurvivesAnExitThatSkipsEveryDestructor) {
  const Intent intent = full_intent("fulfillment:order-42");
  const int status = run_in_child([&] {
    // Leaked on purpose: the connection is never closed, as in a crash.
    auto* ledger = std::make_unique<SqliteIntentLedger>(file_).release();
    ledger->save(intent);
    _exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);

  SqliteIntentLedger ledger(file_);
  EXPECT_EQ(ledger.find("fulfillment:order-42"), intent);
}

TEST_F(SqliteIntentLedgerTest, ASaveSurvivesKillNine) {
  Intent planned = full_intent("fulfillment:order-42");
  planned.status = IntentStatus::planned;
  const int status = run_in_child([&] {
    SqliteIntentLedger ledger(file_);
    ledger.save(planned);
    raise(SIGKILL);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  SqliteIntentLedger ledger(file_);
  EXPECT_EQ(ledger.find("fulfillment:order-42"), planned);
  // And the ledger is writable again: the killed process left no lock behind.
  planned.status = IntentStatus::confirmed;
  ledger.save(planned);
  EXPECT_EQ(ledger.find("fulfillment:order-42"), planned);
}

TEST_F(SqliteIntentLedgerTest, TwoProcessesSavingAtOnceBothSucceed) {
  constexpr int kPerProcess = 40;
  const auto saver = [&](const std::string& prefix) {
    return [&, prefix] {
      SqliteIntentLedger ledger(file_);
      for (int i = 0; i < kPerProcess; ++i) {
        ledger.save(full_intent(prefix + std::to_string(i)));
        // Reads interleave with the other process's writes too.
        if (!ledger.find(prefix + std::to_string(i))) _exit(4);
      }
    };
  };
  std::vector<pid_t> children;
  for (const std::string prefix : {"left-", "right-"}) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        saver(prefix)();
      } catch (...) {
        _exit(3);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }

  SqliteIntentLedger ledger(file_);
  for (const std::string prefix : {"left-", "right-"}) {
    for (int i = 0; i < kPerProcess; ++i) {
      const std::string id = prefix + std::to_string(i);
      EXPECT_EQ(ledger.find(id), full_intent(id));
    }
  }
}

TEST_F(SqliteIntentLedgerTest, OneLedgerSharedBetweenThreadsStaysConsistent) {
  SqliteIntentLedger ledger(file_);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&ledger, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string id = std::to_string(t) + ":" + std::to_string(i);
        ledger.save(full_intent(id));
        EXPECT_EQ(ledger.find(id), full_intent(id));
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::string id = std::to_string(t) + ":" + std::to_string(i);
      EXPECT_EQ(ledger.find(id), full_intent(id));
    }
  }
}

}  // namespace
}  // namespace retryproof::client
