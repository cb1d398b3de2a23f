// retryproof inside a GoogleTest suite: a misbehaving provider started in-process on a free
// loopback port, steered and read without HTTP, and judged by the verdict checkers from its
// traffic alone — the way Toxiproxy or WireMock are used from a test.
//
//   retryproof::testing::Sandbox sandbox;
//   sandbox.faults({"commit-then-drop"});
//   my_code_that_creates_order_42(sandbox.url());
//   const auto verdicts = sandbox.verdicts("attempts=3");
//   EXPECT_TRUE(verdicts.ok()) << verdicts.report();
//   EXPECT_EQ(sandbox.jobs().size(), 1u);
//
// docs/embedding.md has the whole story.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "provider/job_record.hpp"
#include "provider/journal.hpp"
#include "provider/profile.hpp"
#include "scenarios/driver/run_result.hpp"

namespace retryproof::provider {
class ProviderServer;
}

namespace retryproof::testing {

struct SandboxOptions {
  std::uint64_t seed = 0;  // job ids are a pure function of it and of the order of creates
  // The payload field that names the business operation (--operation-field): verdicts group
  // requests by it, not by the keys your code chose. Empty: by idempotency key.
  std::string operation_field = "orderId";
  provider::Profile profile = provider::Profile::baseline;
  bool enforce_keys = true;  // false: every create is a new job, as a provider without keys
};

// The verdicts on the traffic so far: those the verdict table can judge from traffic alone.
class Verdicts {
 public:
  explicit Verdicts(scenarios::ScenarioResult result, std::string replay);

  // No verdict failed.
  bool ok() const { return result_.met(); }
  // The terminal report (`retryproof judge`'s): each verdict, and for a failure the
  // timeline with the requests that prove it. What to print when ok() is false.
  std::string report() const;
  // One verdict's status; throws std::invalid_argument for an id not judged here.
  scenarios::VerdictStatus status(std::string_view verdict) const;
  const scenarios::ScenarioResult& result() const { return result_; }

 private:
  scenarios::ScenarioResult result_;
  std::string replay_;
};

class Sandbox {
 public:
  // Starts the provider; throws std::runtime_error if it cannot listen.
  Sandbox();
  explicit Sandbox(const SandboxOptions& options);
  ~Sandbox();  // stops it
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  // "http://127.0.0.1:PORT": where your code sends its requests.
  std::string url() const;

  // The faults of the next new operations, one each, in order ({"commit-then-drop"}).
  // Throws std::invalid_argument with the provider's message for a bad name.
  void faults(const std::vector<std::string>& names);
  // A whole fault plan, in the body format of POST /_test/faults (rules, script, chaos).
  void plan(const nlohmann::json& plan);
  // Empties the store, the plan and the journal, as POST /_test/reset does.
  void reset();

  std::vector<provider::JobRecord> jobs() const;        // in creation order
  std::vector<provider::JournalEntry> journal() const;  // every request, by seq
  // Judges the journal so far. `policy` is what your code promises, in --client-policy form
  // ("attempts=4,min-backoff=100ms,on-ambiguous=same-key-retry"); throws
  // std::invalid_argument naming a bad key.
  Verdicts verdicts(const std::string& policy = "") const;

 private:
  void control(const std::string& method, const std::string& path, const std::string& body);

  std::string operation_field_;
  std::unique_ptr<provider::ProviderServer> server_;
};

}  // namespace retryproof::testing
