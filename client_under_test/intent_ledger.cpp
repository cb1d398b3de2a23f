#include "client_under_test/intent_ledger.hpp"

#include <sqlite3.h>

#include <array>
#include <climits>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

namespace retryproof::client {

namespace {

constexpr std::array<std::pair<IntentStatus, std::string_view>, 5> kStatusNames{{
    {IntentStatus::planned, "planned"},
    {IntentStatus::sent, "sent"},
    {IntentStatus::confirmed, "confirmed"},
    {IntentStatus::failed, "failed"},
    {IntentStatus::unknown, "unknown"},
}};

}  // namespace

std::string to_string(IntentStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return std::string(name);
  }
  // Only reachable through a cast of an out-of-range integer.
  throw std::invalid_argument("not an intent status: " + std::to_string(static_cast<int>(status)));
}

IntentStatus parse_intent_status(const std::string& name) {
  for (const auto& [value, known] : kStatusNames) {
    if (known == name) return value;
  }
  throw std::invalid_argument("not an intent status: \"" + name + "\"");
}

// ---------------------------------------------------------------------------------------

std::optional<Intent> InMemoryIntentLedger::find(const std::string& operation_id) {
  const auto found = intents_.find(operation_id);
  if (found == intents_.end()) return std::nullopt;
  return found->second;
}

void InMemoryIntentLedger::save(const Intent& intent) {
  intents_.insert_or_assign(intent.operation_id, intent);
}

// ---------------------------------------------------------------------------------------

namespace {

// Returns a cached statement to its pristine state however the call using it ends, so a
// failed step never leaves a read transaction open (which would block other writers).
class StatementUse {
 public:
  explicit StatementUse(sqlite3_stmt* statement) : statement_(statement) {}
  ~StatementUse() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);  // the bound strings are the caller's, soon gone
  }
  StatementUse(const StatementUse&) = delete;
  StatementUse& operator=(const StatementUse&) = delete;

 private:
  sqlite3_stmt* statement_;
};

// One row per operation; the upsert binds the columns as ?1..?9 in this order.
constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS intents (
  operation_id        TEXT    NOT NULL PRIMARY KEY,
  idempotency_key     TEXT    NOT NULL,
  action              TEXT    NOT NULL,
  target              TEXT    NOT NULL,
  payload_fingerprint TEXT    NOT NULL,
  status              TEXT    NOT NULL,
  job_id              TEXT    NOT NULL,
  reason              TEXT    NOT NULL,
  attempts            INTEGER NOT NULL
))sql";

constexpr std::string_view kFind = R"sql(
SELECT idempotency_key, action, target, payload_fingerprint, status, job_id, reason, attempts
FROM intents WHERE operation_id = ?1)sql";

constexpr std::string_view kUpsert = R"sql(
INSERT INTO intents (operation_id, idempotency_key, action, target, payload_fingerprint,
                     status, job_id, reason, attempts)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
ON CONFLICT (operation_id) DO UPDATE SET
  idempotency_key = excluded.idempotency_key,
  action = excluded.action,
  target = excluded.target,
  payload_fingerprint = excluded.payload_fingerprint,
  status = excluded.status,
  job_id = excluded.job_id,
  reason = excluded.reason,
  attempts = excluded.attempts)sql";

// How long a save waits for another process's lock before it fails. SQLite's busy handler
// polls (every 100 ms once it has waited a while) and is not fair: a process saving in a
// tight loop releases the lock for microseconds between commits, so a waiting save may have
// to wait out that whole burst. With synchronous=FULL each commit is several fsyncs, and on
// a loaded CI disk forty of them took more than five seconds (the old timeout). A minute
// covers any burst a client makes; a save still fails, naming the ledger, if a holder is
// stuck.
constexpr int kBusyTimeoutMs = 60'000;

}  // namespace

struct SqliteIntentLedger::Database {
  // Members, not in the anonymous namespace: a type with external linkage (this one) may not
  // hold fields of a type without (GCC's -Wsubobject-linkage, once a unity build includes
  // this file).
  struct ConnectionCloser {
    // close_v2 rather than close: it cannot fail with SQLITE_BUSY, so a destructor never
    // leaks the connection even if a statement were somehow still alive.
    void operator()(sqlite3* connection) const noexcept { sqlite3_close_v2(connection); }
  };
  struct StatementFinalizer {
    void operator()(sqlite3_stmt* statement) const noexcept { sqlite3_finalize(statement); }
  };
  using Connection = std::unique_ptr<sqlite3, ConnectionCloser>;
  using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

  explicit Database(const std::filesystem::path& file);

  [[noreturn]] void fail(const std::string& what) const;
  // Only while opening, so their failures read "cannot open".
  void execute(std::string_view sql);
  Statement prepare(std::string_view sql);
  void bind(sqlite3_stmt* statement, int index, const std::string& value);
  std::string column_text(sqlite3_stmt* statement, int column) const;

  std::filesystem::path file;
  // Declared before the statements so that it is destroyed after them.
  Connection connection;
  Statement find;
  Statement upsert;
  // A prepared statement serves one call at a time; this keeps a ledger shared between
  // threads correct (processes are serialised by SQLite's file locks instead).
  std::mutex mutex;
};

SqliteIntentLedger::Database::Database(const std::filesystem::path& ledger_file)
    : file(ledger_file) {
  if (const auto parent = file.parent_path(); !parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      throw std::runtime_error("intent ledger \"" + file.string() +
                               "\": cannot create its directory: " + error.message());
    }
  }

  sqlite3* raw = nullptr;
  const int opened =
      sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  connection.reset(raw);  // owned even on failure: SQLite may hand back a handle to close
  if (opened != SQLITE_OK) {
    if (!connection) {
      throw std::runtime_error("intent ledger \"" + file.string() +
                               "\": cannot open: " + sqlite3_errstr(opened));
    }
    fail("cannot open");
  }
  sqlite3_extended_result_codes(connection.get(), 1);
  // SQLite falls back to read-only when it may not write; a ledger that cannot record
  // an intent must fail here, before any request, not on the first save.
  if (sqlite3_db_readonly(connection.get(), "main") == 1) {
    throw std::runtime_error("intent ledger \"" + file.string() +
                             "\": cannot open: the file is read-only");
  }
  // Another process sharing the state dir may hold the lock for a moment: wait for it
  // rather than fail a save (and with it the run) spuriously.
  sqlite3_busy_timeout(connection.get(), kBusyTimeoutMs);
  // The default rollback journal, fsynced on every commit: a save that returned survives
  // kill -9 and power loss. (WAL with synchronous=FULL would too, but leaves -wal/-shm
  // files beside the ledger and needs shared memory, which some state dirs lack.)
  execute("PRAGMA synchronous = FULL");
  // The first statement that reads the file: a garbage file fails here as "not a database".
  execute(kSchema);
  find = prepare(kFind);
  upsert = prepare(kUpsert);
}

void SqliteIntentLedger::Database::fail(const std::string& what) const {
  throw std::runtime_error("intent ledger \"" + file.string() + "\": " + what + ": " +
                           sqlite3_errmsg(connection.get()));
}

void SqliteIntentLedger::Database::execute(std::string_view sql) {
  const Statement statement = prepare(sql);
  int stepped = SQLITE_ROW;
  while (stepped == SQLITE_ROW)  // a pragma may answer with a row; it is not needed
    stepped = sqlite3_step(statement.get());
  if (stepped != SQLITE_DONE) fail("cannot open");
}

SqliteIntentLedger::Database::Statement SqliteIntentLedger::Database::prepare(
    std::string_view sql) {
  sqlite3_stmt* raw = nullptr;
  const int prepared =
      sqlite3_prepare_v2(connection.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  Statement statement(raw);
  if (prepared != SQLITE_OK) fail("cannot open");
  return statement;
}

void SqliteIntentLedger::Database::bind(sqlite3_stmt* statement, int index,
                                        const std::string& value) {
  // An explicit length keeps embedded NULs; nullptr is SQLITE_STATIC (the macro is a C
  // cast): the string outlives the statement's use, which ends with StatementUse.
  if (sqlite3_bind_text64(statement, index, value.data(), value.size(), nullptr, SQLITE_UTF8) !=
      SQLITE_OK) {
    fail("cannot bind a value");
  }
}

std::string SqliteIntentLedger::Database::column_text(sqlite3_stmt* statement, int column) const {
  const unsigned char* text = sqlite3_column_text(statement, column);
  if (text == nullptr) return {};  // NULL; the schema forbids it, but a hand edit may not
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(statement, column)));
}

SqliteIntentLedger::SqliteIntentLedger(const std::filesystem::path& file)
    : database_(std::make_unique<Database>(file)) {}

SqliteIntentLedger::~SqliteIntentLedger() = default;

std::optional<Intent> SqliteIntentLedger::find(const std::string& operation_id) {
  Database& db = *database_;
  const std::lock_guard lock(db.mutex);
  sqlite3_stmt* statement = db.find.get();
  const StatementUse use(statement);
  db.bind(statement, 1, operation_id);

  const int stepped = sqlite3_step(statement);
  if (stepped == SQLITE_DONE) return std::nullopt;
  if (stepped != SQLITE_ROW) db.fail("cannot read the intent for \"" + operation_id + "\"");

  Intent intent;
  intent.operation_id = operation_id;
  intent.idempotency_key = db.column_text(statement, 0);
  intent.action = db.column_text(statement, 1);
  intent.target = db.column_text(statement, 2);
  intent.payload_fingerprint = db.column_text(statement, 3);
  const std::string status = db.column_text(statement, 4);
  try {
    intent.status = parse_intent_status(status);
  } catch (const std::invalid_argument&) {
    // A status this build does not know means the file was written by something else:
    // guessing would risk a second request, so refuse.
    throw std::runtime_error("intent ledger \"" + db.file.string() + "\": the intent for \"" +
                             operation_id + "\" has an unknown status \"" + status + "\"");
  }
  intent.job_id = db.column_text(statement, 5);
  intent.reason = db.column_text(statement, 6);
  const sqlite3_int64 attempts = sqlite3_column_int64(statement, 7);
  if (attempts < INT_MIN || attempts > INT_MAX) {
    throw std::runtime_error("intent ledger \"" + db.file.string() + "\": the intent for \"" +
                             operation_id + "\" has an out-of-range attempt count");
  }
  intent.attempts = static_cast<int>(attempts);
  return intent;
}

void SqliteIntentLedger::save(const Intent& intent) {
  Database& db = *database_;
  const std::lock_guard lock(db.mutex);
  sqlite3_stmt* statement = db.upsert.get();
  const StatementUse use(statement);
  const std::string status = to_string(intent.status);
  db.bind(statement, 1, intent.operation_id);
  db.bind(statement, 2, intent.idempotency_key);
  db.bind(statement, 3, intent.action);
  db.bind(statement, 4, intent.target);
  db.bind(statement, 5, intent.payload_fingerprint);
  db.bind(statement, 6, status);
  db.bind(statement, 7, intent.job_id);
  db.bind(statement, 8, intent.reason);
  if (sqlite3_bind_int(statement, 9, intent.attempts) != SQLITE_OK) db.fail("cannot bind a value");

  // One statement in autocommit mode is its own transaction: when step reports DONE the
  // commit has happened and, with synchronous=FULL, the journal and the file are fsynced.
  if (sqlite3_step(statement) != SQLITE_DONE) {
    db.fail("cannot save the intent for \"" + intent.operation_id + "\"");
  }
}

}  // namespace retryproof::client
