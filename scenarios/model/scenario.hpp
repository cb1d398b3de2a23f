// A scenario: a provider set up to fail in a chosen way, operations for a client to
// carry out, and what a retry-safe client must achieve. Loaded from JSON files under
// scenarios/catalog/ (docs/scenarios.md describes the format).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client_under_test/retrying_client.hpp"
#include "client_under_test/settings_contract.hpp"
#include "common/json_node.hpp"
#include "common/millis.hpp"
#include "provider/api_shape.hpp"
#include "provider/fault_plan.hpp"
#include "provider/profile.hpp"
#include "scenarios/model/client_policy.hpp"
#include "scenarios/model/outcome_line.hpp"
#include "scenarios/model/traffic.hpp"

namespace retryproof::scenarios {

// A scenario file that breaks the format: where and what.
using ScenarioError = FormatError;
using Node = JsonNode;

struct ScenarioOperation {
  std::string id;          // business identity: the operation id clients derive keys from
  nlohmann::json payload;  // a JSON object
};

// Where an invocation is killed on purpose: SIGKILL to a process, ClientKilled in the
// simulation — in both, at the first moment the provider's records show the point reached.
struct KillPoint {
  enum class When {
    never,
    after_commit,   // as soon as the provider holds a new job
    after_request,  // as soon as the provider has seen the invocation's n-th request
  };
  When when = When::never;
  int request = 0;  // for after_request, from 1

  bool armed() const { return when != When::never; }
  // Whether the invocation has reached the point, by what the provider recorded since it
  // began: jobs committed, requests seen.
  bool reached(std::size_t new_jobs, std::size_t requests) const;
  std::string describe() const;  // "after-commit", "after-request:2"

  friend bool operator==(const KillPoint&, const KillPoint&) = default;
};

// "after-commit" or "after-request:N". Throws std::invalid_argument saying what is accepted.
KillPoint parse_kill_point(std::string_view text);

struct Invocation {
  std::string operation;                  // an operation id of the scenario
  std::optional<nlohmann::json> payload;  // replaces the operation's payload for this run
  KillPoint kill;
  Millis after{0};  // the provider's clock moves this far forward before the run
  // Open-loop traffic's (traffic.hpp): when it arrives, from the fleet's start, and the
  // service instance that serves it.
  std::optional<Millis> starts_at;
  int instance = 0;
};

// What the provider promises, as a fact of the scenario: a client's assumption about it
// can then be tested.
struct ProviderContract {
  // A repeated key replays (or is refused); false: every create is a new job, though keys
  // are still recorded for lookup (a searchable client reference, not an idempotency key).
  bool enforces_keys = true;
  std::optional<Millis> key_ttl;  // keys are forgotten this long after their job was created
};

// Which client a scenario insists on, whatever --client says (the anti-pattern
// scenarios pin a mutant to show the harness flags it).
struct ClientChoice {
  enum class Kind { reference, mutant, command } kind = Kind::reference;
  client::Mutant mutant = client::Mutant::none;
  std::string command;  // for Kind::command: run with /bin/sh -c

  std::string describe() const;  // "reference", "mutant:blind-retry", "cmd:python3 x.py"
};

// Parses --client values: reference, mutant:NAME, cmd:COMMAND. Throws std::invalid_argument.
ClientChoice parse_client_choice(const std::string& text);

struct Expectations {
  std::optional<int> jobs;              // jobs the provider holds at the end
  std::vector<Reported> outcomes;       // allowed final outcomes; empty: any
  std::vector<std::string> violations;  // verdict ids expected to fail; others must pass
  // Answers the scenario exists to show its client (journal outcomes, such as "conflict"):
  // a run in which no request met one could not test what the scenario is for, and is
  // inconclusive.
  std::vector<provider::Outcome> exercises;
  // Plan sources ("faults[1]") a run judged by these expectations need not meet: a lookup
  // fault a same-key-retry client never asks for, say. The plan's own "optional" says the
  // same for every client.
  std::vector<std::string> optional;
};

// What a scenario expects, and what it expects instead of a client that declares
// same-key-retry: a scenario that shows where that assumption does harm (a provider that
// does not deduplicate) expects the harm, and says so, rather than failing the client.
struct ScenarioExpectations : Expectations {
  std::optional<Expectations> under_same_key_retry;

  const Expectations& for_policy(OnAmbiguous policy) const {
    return policy == OnAmbiguous::same_key_retry && under_same_key_retry ? *under_same_key_retry
                                                                         : *this;
  }
};

// How many clients run at once. One (the default): invocations run one after another. More:
// a fleet, `concurrency` invocations at a time, each its own client on a port of its own
// (so its requests are its, whatever keys it sends), started together or spread evenly
// over `start_spread`.
struct Fleet {
  int concurrency = 1;
  Millis start_spread{0};

  bool is_fleet() const { return concurrency > 1; }
};

struct Scenario {
  std::filesystem::path file;
  std::string name;
  std::string description;
  provider::ApiShape api = provider::jobs_shape();  // the wire the provider speaks
  provider::Profile profile = provider::Profile::baseline;
  ProviderContract provider;
  nlohmann::json plan;  // the provider's plan format, validated by FaultPlan::from_json
  std::vector<ScenarioOperation> operations;
  std::vector<Invocation> invocations;  // default: one per operation, in order
  // What every client is given in RETRYPROOF_CLIENT (and the reference client runs with).
  client::ClientSettings settings = client::kDefaultSettings;
  Millis min_gap{50};          // the backoff floor, unless the client declares another
  Millis time_limit{20000};    // per invocation
  ClientPolicy client_policy;  // what the scenario assumes of its client; the user's wins
  bool tls = false;            // "tls": its provider serves HTTPS, as under `run --tls`
  Fleet fleet;                 // "concurrency" and "startSpread"
  // "traffic": operations arriving at a rate, drawn per run (expand_traffic); then
  // `operations` and `invocations` are empty until expanded.
  std::optional<TrafficPlan> traffic;
  std::optional<ClientChoice> pinned_client;
  ScenarioExpectations expect;

  const ScenarioOperation& operation(const std::string& id) const;
};

// Validates a scenario document; `origin` names it in errors and in reports.
Scenario scenario_from_json(const nlohmann::json& document, const std::filesystem::path& origin);

// Reads and validates one file. Throws ScenarioError naming the file, the JSON path
// and what was expected ("catalog/c.json: $.plan.faults[0]: unknown fault ...").
Scenario load_scenario(const std::filesystem::path& file);

// Every *.json under the given files and directories, sorted by path; all errors of all
// files are collected and thrown together, so nothing runs on an invalid catalog.
std::vector<Scenario> load_catalog(const std::vector<std::filesystem::path>& paths);

}  // namespace retryproof::scenarios
