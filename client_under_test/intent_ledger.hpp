// The client's durable memory of what it set out to do: an intent is written before the
// first request and after every outcome, so that a client that crashed can resume by
// reconciling instead of sending again.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace retryproof::client {

enum class IntentStatus { planned, sent, confirmed, failed, unknown };

std::string to_string(IntentStatus status);
// Throws std::invalid_argument for a name that is not a status.
IntentStatus parse_intent_status(const std::string& name);

struct Intent {
  std::string operation_id;         // the business identity, e.g. "fulfillment:order-42"
  std::string idempotency_key;      // derived once, before the first attempt
  std::string action = "create";    // what the operation does
  std::string target = "/jobs";     // where
  std::string payload_fingerprint;  // SHA-256 of the canonical payload
  IntentStatus status = IntentStatus::planned;
  std::string job_id;  // once confirmed
  std::string reason;  // why it failed or is unknown
  int attempts = 0;    // POSTs sent so far, across restarts

  friend bool operator==(const Intent&, const Intent&) = default;
};

class IntentLedger {
 public:
  virtual ~IntentLedger() = default;
  virtual std::optional<Intent> find(const std::string& operation_id) = 0;
  // Inserts or replaces the intent for its operation id; durable when it returns.
  virtual void save(const Intent& intent) = 0;
};

// For simulation and for the memory-only-intent mutant: forgotten with the process.
class InMemoryIntentLedger final : public IntentLedger {
 public:
  std::optional<Intent> find(const std::string& operation_id) override;
  void save(const Intent& intent) override;

 private:
  std::map<std::string, Intent> intents_;
};

// One SQLite file; every save is a committed transaction with synchronous=FULL, so an
// intent saved before a request survives a kill -9 right after it.
class SqliteIntentLedger final : public IntentLedger {
 public:
  // Opens or creates the ledger file. Throws std::runtime_error naming the file and
  // SQLite's message when it cannot.
  explicit SqliteIntentLedger(const std::filesystem::path& file);
  ~SqliteIntentLedger() override;
  SqliteIntentLedger(const SqliteIntentLedger&) = delete;
  SqliteIntentLedger& operator=(const SqliteIntentLedger&) = delete;

  std::optional<Intent> find(const std::string& operation_id) override;
  void save(const Intent& intent) override;

 private:
  struct Database;
  std::unique_ptr<Database> database_;
};

}  // namespace retryproof::client
