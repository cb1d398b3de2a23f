#include "scenarios/model/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "common/duration.hpp"
#include "common/json_node.hpp"
#include "common/json_text.hpp"
#include "common/suggest.hpp"
#include "scenarios/evidence/verdicts.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;

ScenarioOperation read_operation(const Node& node) {
  node.object({"id", "payload"});
  if (!node.has("id")) node.fail("an operation needs an \"id\"");
  return {node.field("id").non_empty_string(),
          node.has("payload") ? node.field("payload").payload() : json::object()};
}

void read_generated(const Node& node, std::vector<ScenarioOperation>& operations) {
  node.object({"count", "idPrefix"});
  const int count = node.has("count") ? node.field("count").integer(1, 10000) : 1;
  const std::string prefix = node.has("idPrefix") ? node.field("idPrefix").non_empty_string()
                                                  : std::string("fulfillment:generated-");
  for (int i = 1; i <= count; ++i) {
    const std::string n = std::to_string(i);
    operations.push_back({prefix + n, {{"orderId", "order-" + n}, {"amount", 100 + i}}});
  }
}

Invocation read_invocation(const Node& node, const std::set<std::string>& operation_ids) {
  node.object({"operation", "payload", "kill", "after"});
  if (!node.has("operation")) node.fail("an invocation names its \"operation\"");
  Invocation invocation{node.field("operation").non_empty_string()};
  if (!operation_ids.contains(invocation.operation)) {
    node.field("operation").fail("no operation has the id \"" + invocation.operation + "\"");
  }
  if (node.has("payload")) invocation.payload = node.field("payload").payload();
  if (node.has("after")) invocation.after = node.field("after").duration();
  if (node.has("kill")) {
    try {
      invocation.kill = parse_kill_point(node.field("kill").string());
    } catch (const std::invalid_argument& error) {
      node.field("kill").fail(error.what());
    }
  }
  return invocation;
}

void read_client(const Node& node, Scenario& scenario) {
  node.object({"attempts", "baseDelay", "maxDelay", "timeout", "use"});
  auto& settings = scenario.settings;
  if (node.has("attempts")) settings.attempts = node.field("attempts").integer(1, 100);
  if (node.has("baseDelay")) settings.base_delay = node.field("baseDelay").duration();
  if (node.has("maxDelay")) settings.max_delay = node.field("maxDelay").duration();
  if (node.has("timeout")) settings.timeout = node.field("timeout").duration();
  if (settings.max_delay < settings.base_delay) node.fail("maxDelay is shorter than baseDelay");
  if (node.has("use")) {
    try {
      scenario.pinned_client = parse_client_choice(node.field("use").string());
    } catch (const std::invalid_argument& error) {
      node.field("use").fail(error.what());
    }
  }
}

ProviderContract read_provider(const Node& node) {
  node.object({"enforcesKeys", "keyTtl"});
  ProviderContract contract;
  if (node.has("enforcesKeys")) {
    const Node field = node.field("enforcesKeys");
    if (!field.value.is_boolean()) field.fail("expected true or false");
    contract.enforces_keys = field.value.get<bool>();
  }
  if (node.has("keyTtl")) contract.key_ttl = node.field("keyTtl").duration();
  return contract;
}

// `sources` are the plan's ("faults[0]", "outages[1]"), which "optional" may name.
void read_expectations(const Node& node, Expectations& expect,
                       const std::vector<std::string>& sources,
                       std::initializer_list<std::string_view> fields = {
                           "jobs", "outcomes", "violations", "exercises", "optional"}) {
  node.object(fields);
  if (node.has("jobs")) expect.jobs = node.field("jobs").integer(0, 1'000'000);
  if (node.has("outcomes")) {
    const Node outcomes = node.field("outcomes");
    for (std::size_t i = 0; i < outcomes.array().size(); ++i) {
      const auto outcome = parse_reported(outcomes.item(i).string());
      if (!outcome) outcomes.item(i).fail("expected succeeded, failed or unknown");
      expect.outcomes.push_back(*outcome);
    }
  }
  if (node.has("violations")) {
    const Node violations = node.field("violations");
    for (std::size_t i = 0; i < violations.array().size(); ++i) {
      const std::string id = violations.item(i).string();
      const auto& known = verdict_ids();
      if (std::find(known.begin(), known.end(), id) == known.end()) {
        violations.item(i).fail("unknown verdict \"" + id + "\"");
      }
      expect.violations.push_back(id);
    }
  }
  if (node.has("exercises")) {
    const Node exercises = node.field("exercises");
    for (std::size_t i = 0; i < exercises.array().size(); ++i) {
      const std::string name = exercises.item(i).string();
      const auto outcome = provider::outcome_named(name);
      if (!outcome) {
        exercises.item(i).fail("unknown journal outcome \"" + name + "\"" +
                               did_you_mean(name, provider::outcome_names()));
      }
      expect.exercises.push_back(*outcome);
    }
  }
  if (node.has("optional")) {
    const Node optional = node.field("optional");
    for (std::size_t i = 0; i < optional.array().size(); ++i) {
      const std::string source = optional.item(i).string();
      if (std::find(sources.begin(), sources.end(), source) == sources.end()) {
        optional.item(i).fail("\"" + source + "\" is no entry of the plan" +
                              did_you_mean(source, sources) +
                              "; name one as the plan's report does: faults[0], chaos, outages[0]");
      }
      expect.optional.push_back(source);
    }
  }
}

// "concurrency": N and "startSpread": "1s". A kill point or an "after" needs invocations
// that run one at a time: both are defined against what the provider saw since the
// invocation began, which in a fleet is every client's traffic.
void read_fleet(const Node& root, Scenario& scenario) {
  if (root.has("concurrency"))
    scenario.fleet.concurrency = root.field("concurrency").integer(1, 1000);
  if (root.has("startSpread")) {
    if (!scenario.fleet.is_fleet())
      root.field("startSpread").fail("a start spread needs \"concurrency\" above 1");
    scenario.fleet.start_spread = root.field("startSpread").duration();
  }
  if (!scenario.fleet.is_fleet()) return;
  const Node invocations = root.has("invocations") ? root.field("invocations") : root;
  for (std::size_t i = 0; i < scenario.invocations.size(); ++i) {
    const Invocation& invocation = scenario.invocations[i];
    if (invocation.kill.armed()) {
      invocations.item(i).field("kill").fail(
          "a kill point needs invocations that run one at a time (\"concurrency\": 1)");
    }
    if (invocation.after > Millis(0)) {
      invocations.item(i).field("after").fail(
          "\"after\" moves the provider's clock for every client: it needs \"concurrency\": 1");
    }
  }
}

// A shape file is named relative to the scenario that names it; a shape implies the
// semantics of the API it copies, unless "profile" says otherwise.
void read_api_and_profile(const Node& root, Scenario& scenario) {
  if (root.has("api")) {
    const std::string name = root.field("api").non_empty_string();
    const bool built_in = name.find('/') == std::string::npos && !name.ends_with(".json");
    try {
      scenario.api =
          provider::load_api_shape(built_in ? name : (scenario.file.parent_path() / name).string());
    } catch (const std::invalid_argument& error) {
      root.field("api").fail(error.what());
    }
  }
  scenario.profile = scenario.api.profile.value_or(provider::Profile::baseline);
  if (root.has("profile")) {
    try {
      scenario.profile = provider::parse_profile(root.field("profile").string());
    } catch (const std::invalid_argument& error) {
      root.field("profile").fail(error.what());
    }
  }
}

// The plan, checked as the provider will read it; the names of its sources, for "expect".
std::vector<std::string> read_plan(const Node& root, Scenario& scenario) {
  scenario.plan = root.has("plan") ? root.field("plan").value : json{{"faults", json::array()}};
  std::vector<std::string> plan_sources;
  try {
    for (const provider::PlanUse& use : provider::FaultPlan::from_json(scenario.plan).uses())
      plan_sources.push_back(use.source);
  } catch (const std::invalid_argument& error) {
    throw ScenarioError("$.plan: " + std::string(error.what()));
  }
  return plan_sources;
}

// The operations, listed or generated, each id once; then who runs them (one invocation per
// operation unless "invocations" says otherwise).
void read_operations_and_invocations(const Node& root, Scenario& scenario) {
  if (root.has("operations")) {
    const Node operations = root.field("operations");
    for (std::size_t i = 0; i < operations.array().size(); ++i) {
      scenario.operations.push_back(read_operation(operations.item(i)));
    }
  }
  if (root.has("generatedOperations"))
    read_generated(root.field("generatedOperations"), scenario.operations);
  if (scenario.operations.empty())
    root.fail("a scenario needs \"operations\" (or \"generatedOperations\")");
  std::set<std::string> ids;
  for (const auto& operation : scenario.operations) {
    if (!ids.insert(operation.id).second)
      root.fail("two operations have the id \"" + operation.id + "\"");
  }
  if (root.has("invocations")) {
    const Node invocations = root.field("invocations");
    if (invocations.array().empty()) invocations.fail("expected at least one invocation");
    for (std::size_t i = 0; i < invocations.array().size(); ++i) {
      scenario.invocations.push_back(read_invocation(invocations.item(i), ids));
    }
  } else {
    for (const auto& operation : scenario.operations)
      scenario.invocations.push_back({operation.id});
  }
}

void read_expect(const Node& expect, const std::vector<std::string>& plan_sources,
                 Scenario& scenario) {
  read_expectations(
      expect, scenario.expect, plan_sources,
      {"jobs", "outcomes", "violations", "exercises", "optional", "underSameKeyRetry"});
  if (expect.has("underSameKeyRetry")) {
    scenario.expect.under_same_key_retry.emplace();
    read_expectations(expect.field("underSameKeyRetry"), *scenario.expect.under_same_key_retry,
                      plan_sources);
  }
}

Scenario read_scenario(const json& document, const std::filesystem::path& file) {
  const Node root{document, "$"};
  root.object({"name", "description", "api", "profile", "provider", "plan", "operations",
               "generatedOperations", "clientPolicy", "invocations", "client", "minGap",
               "timeLimit", "expect", "tls", "concurrency", "startSpread", "traffic"});
  Scenario scenario;
  scenario.file = file;
  if (!root.has("name")) root.fail("a scenario needs a \"name\"");
  scenario.name = root.field("name").non_empty_string();
  if (root.has("description")) scenario.description = root.field("description").string();
  read_api_and_profile(root, scenario);
  const std::vector<std::string> plan_sources = read_plan(root, scenario);
  if (root.has("traffic")) {
    for (const char* field :
         {"operations", "generatedOperations", "invocations", "concurrency", "startSpread"}) {
      if (root.has(field)) {
        root.field(field).fail(
            "traffic generates its operations and runs them as a fleet of its \"instances\"; "
            "leave this out");
      }
    }
    scenario.traffic = read_traffic(root.field("traffic"));
  } else {
    read_operations_and_invocations(root, scenario);
    read_fleet(root, scenario);
  }
  if (root.has("tls")) {
    const Node field = root.field("tls");
    if (!field.value.is_boolean()) field.fail("expected true or false");
    scenario.tls = field.value.get<bool>();
  }
  if (root.has("client")) read_client(root.field("client"), scenario);
  scenario.min_gap =
      root.has("minGap") ? root.field("minGap").duration() : scenario.settings.base_delay / 2;
  if (root.has("timeLimit")) scenario.time_limit = root.field("timeLimit").duration();
  if (root.has("clientPolicy"))
    scenario.client_policy = client_policy_from(root.field("clientPolicy"));
  if (root.has("provider")) scenario.provider = read_provider(root.field("provider"));
  if (root.has("expect")) read_expect(root.field("expect"), plan_sources, scenario);
  return scenario;
}

}  // namespace

bool KillPoint::reached(std::size_t new_jobs, std::size_t requests) const {
  switch (when) {
    case When::never:
      return false;
    case When::after_commit:
      return new_jobs > 0;
    case When::after_request:
      return requests >= static_cast<std::size_t>(request);
  }
  return false;
}

std::string KillPoint::describe() const {
  switch (when) {
    case When::never:
      return "never";
    case When::after_commit:
      return "after-commit";
    case When::after_request:
      return "after-request:" + std::to_string(request);
  }
  return "never";
}

KillPoint parse_kill_point(std::string_view text) {
  if (text == "after-commit") return {KillPoint::When::after_commit};
  constexpr std::string_view kAfterRequest = "after-request:";
  if (text.starts_with(kAfterRequest)) {
    const std::string_view digits = text.substr(kAfterRequest.size());
    int n = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (error == std::errc{} && end == digits.data() + digits.size() && n >= 1 && n <= 1000) {
      return {KillPoint::When::after_request, n};
    }
  }
  throw std::invalid_argument(
      "a kill point is \"after-commit\" or \"after-request:N\" (N from 1 "
      "to 1000: killed once the provider has seen N requests of the "
      "invocation), not \"" +
      std::string(text) + "\"");
}

std::string ClientChoice::describe() const {
  switch (kind) {
    case Kind::reference:
      return "reference";
    case Kind::mutant:
      return "mutant:" + client::to_string(mutant);
    case Kind::command:
      return "cmd:" + command;
  }
  return "reference";
}

ClientChoice parse_client_choice(const std::string& text) {
  if (text == "reference") return {};
  if (text.starts_with("mutant:")) {
    return {ClientChoice::Kind::mutant, client::parse_mutant(text.substr(7)), {}};
  }
  if (text.starts_with("cmd:") && text.size() > 4) {
    return {ClientChoice::Kind::command, client::Mutant::none, text.substr(4)};
  }
  throw std::invalid_argument(
      "a client is \"reference\", \"mutant:NAME\" or \"cmd:COMMAND\", not \"" + text + "\"");
}

const ScenarioOperation& Scenario::operation(const std::string& id) const {
  return *std::find_if(operations.begin(), operations.end(),
                       [&](const ScenarioOperation& operation) { return operation.id == id; });
}

Scenario scenario_from_json(const json& document, const std::filesystem::path& origin) {
  try {
    return read_scenario(document, origin);
  } catch (const ScenarioError& error) {
    throw ScenarioError(origin.string() + ": " + error.what());
  }
}

Scenario load_scenario(const std::filesystem::path& file) {
  std::ifstream stream(file);
  if (!stream) throw ScenarioError(file.string() + ": cannot be read");
  std::stringstream text;
  text << stream.rdbuf();
  json document;
  try {
    document = json::parse(text.str());
  } catch (const json::exception& error) {
    throw ScenarioError(file.string() + ": not valid JSON: " + json_error_message(error));
  }
  return scenario_from_json(document, file);
}

std::vector<Scenario> load_catalog(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::filesystem::path> files;
  std::string errors;
  for (const auto& path : paths) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path, error)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json")
          files.push_back(entry.path());
      }
    } else if (std::filesystem::is_regular_file(path, error)) {
      files.push_back(path);
    } else {
      errors += path.string() + ": no such file or directory\n";
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Scenario> scenarios;
  std::set<std::string> names;
  for (const auto& file : files) {
    try {
      Scenario scenario = load_scenario(file);
      if (!names.insert(scenario.name).second) {
        throw ScenarioError(file.string() + ": $.name: another scenario is also named \"" +
                            scenario.name + "\"");
      }
      scenarios.push_back(std::move(scenario));
    } catch (const ScenarioError& error) {
      errors += std::string(error.what()) + "\n";
    }
  }
  if (!errors.empty()) throw ScenarioError(errors);
  if (scenarios.empty()) throw ScenarioError("no scenario files (*.json) found");
  return scenarios;
}

}  // namespace retryproof::scenarios
