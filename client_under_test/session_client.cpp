#include "client_under_test/session_client.hpp"

#include <memory>
#include <mutex>
#include <ostream>

#include "client_under_test/http_transport.hpp"
#include "client_under_test/instance_guards.hpp"
#include "client_under_test/intent_ledger.hpp"
#include "common/splitmix64.hpp"
#include "common/stable_hash.hpp"
#include "embed/cpp/session.hpp"

namespace retryproof::client {
namespace {

using nlohmann::json;

// A ledger shared by every operation of the instance, one call at a time. SqliteIntentLedger
// serialises its own calls already; the in-memory one (no state dir) does not, and a lock
// here makes both safe without either knowing about threads.
class LockedLedger final : public IntentLedger {
 public:
  explicit LockedLedger(std::unique_ptr<IntentLedger> inner) : inner_(std::move(inner)) {}
  std::optional<Intent> find(const std::string& operation_id) override {
    const std::lock_guard lock(mutex_);
    return inner_->find(operation_id);
  }
  void save(const Intent& intent) override {
    const std::lock_guard lock(mutex_);
    inner_->save(intent);
  }

 private:
  std::unique_ptr<IntentLedger> inner_;
  std::mutex mutex_;
};

std::unique_ptr<IntentLedger> open_ledger(const std::string& state_dir) {
  if (state_dir.empty()) return std::make_unique<InMemoryIntentLedger>();
  return std::make_unique<SqliteIntentLedger>(std::filesystem::path(state_dir) / "intents.sqlite");
}

// What every operation of one instance shares, and nothing else: a service keeps one SDK
// client object for thousands of calls, and this is that object's state. Built once per
// session, in serve_session. Per-instance policy (a retry budget, a circuit breaker) is a
// member here, and must be safe to use from every operation's thread at once. What is not
// safe to share is made per operation in run_operation: the transport, clock and jitter.
struct InstanceState {
  explicit InstanceState(const SessionConfig& config)
      : ledger(open_ledger(config.state_dir)), guards(config.mutant) {}

  // One operation's parts: its own transport, clock and jitter, and what the instance shares.
  ClientParts parts(Transport& transport, SystemClock& clock, Random& random) {
    return {.transport = transport,
            .clock = clock,
            .sleeper = clock,
            .random = random,
            .ledger = ledger,
            .budget = &guards.budget,
            .breaker = &guards.breaker};
  }

  LockedLedger ledger;
  // Kept across every operation the instance serves, as a service's SDK client keeps them
  // (instance_guards.hpp); the no-budget mutant ignores the budget.
  InstanceGuards guards;
  std::mutex log;  // --verbose's attempt histories, one operation's at a time
};

void print_history(const std::string& id, const ClientResult& result, InstanceState& shared,
                   std::ostream& errors) {
  const std::lock_guard lock(shared.log);
  for (const Step& step : result.history) {
    errors << "[client " << id << "] #" << step.attempt << " t=" << step.at.count() << "ms "
           << step.request << " key=" << step.key << " -> " << step.result << " ("
           << step.classification << "): " << step.decision << '\n';
  }
  errors.flush();
}

// One operation, on its own thread: a transport, clock and jitter of its own, the
// instance's shared state. An exception is answered `unknown` by serve().
json run_operation(const SessionConfig& config, InstanceState& shared,
                   const session::Operation& operation, std::ostream& errors) {
  HttpTransport transport(config.base_url, config.scale, config.ca_file);
  SystemClock clock(config.scale);
  SeededRandom random(operation_seed(config.seed, operation.id));
  RetryingClient client(config.settings, shared.parts(transport, clock, random), config.mutant);
  const ClientResult result = client.run({operation.operation_id, operation.payload});
  if (config.verbose) print_history(operation.id, result, shared, errors);
  return result.outcome_line();
}

}  // namespace

std::uint64_t operation_seed(std::uint64_t session_seed, const std::string& id) {
  return SplitMix64(session_seed ^ stable_hash(id)).next();
}

int serve_session(const SessionConfig& config, std::istream& input, std::ostream& output,
                  std::ostream& errors) {
  std::unique_ptr<InstanceState> shared;
  try {
    shared = std::make_unique<InstanceState>(config);
  } catch (const std::exception& error) {
    errors << "retryproof client --session: " << error.what() << std::endl;
    return 1;
  }
  return session::serve(
      [&](const session::Operation& operation) {
        return run_operation(config, *shared, operation, errors);
      },
      {.max_in_flight = config.max_in_flight,
       .input = &input,
       .output = &output,
       .errors = &errors});
}

}  // namespace retryproof::client
