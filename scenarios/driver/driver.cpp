#include "scenarios/driver/driver.hpp"

#include <algorithm>
#include <map>

#include "common/invariant.hpp"
#include "scenarios/driver/attribution.hpp"
#include "scenarios/evidence/evidence.hpp"
#include "scenarios/evidence/fleet.hpp"
#include "scenarios/evidence/goodput.hpp"
#include "scenarios/evidence/operator_numbers.hpp"
#include "scenarios/evidence/stalls.hpp"
#include "scenarios/model/expectations.hpp"

namespace retryproof::scenarios {

int ScenarioResult::creates() const {
  return static_cast<int>(std::count_if(journal.begin(), journal.end(), [](const auto& entry) {
    return entry.kind == provider::RequestKind::create;
  }));
}

provider::ProviderConfig provider_config(const Scenario& scenario, std::uint64_t seed) {
  return {.seed = seed,
          .profile = scenario.profile,
          .api = scenario.api,
          .key_ttl = scenario.provider.key_ttl,
          .enforce_keys = scenario.provider.enforces_keys,
          .initial_plan = provider::FaultPlan::from_json(scenario.plan),
          .operation_field = scenario.api.operation_pointer().value_or(kScenarioOperationField)};
}

std::string to_string(ScenarioStatus status) {
  switch (status) {
    case ScenarioStatus::met:
      return "met";
    case ScenarioStatus::inconclusive:
      return "inconclusive";
    case ScenarioStatus::failed:
      return "failed";
  }
  return "failed";
}

std::string cannot_speak(const Scenario& scenario, const ClientChoice& client) {
  const ClientChoice& runs = scenario.pinned_client ? *scenario.pinned_client : client;
  if (runs.kind == ClientChoice::Kind::command || scenario.api.name == "jobs") return {};
  return scenario.file.string() + ": the scenario speaks the " + scenario.api.name + " API, and " +
         runs.describe() + " speaks only jobs; judge a client of that API (--client cmd:...)";
}

std::string not_reached(const KillPoint& kill) {
  return "ended before its kill point (" + kill.describe() +
         ") was reached: the crash the scenario exists for never happened";
}

bool ScenarioResult::fails_at(Severity threshold) const {
  return std::any_of(unmet.begin(), unmet.end(),
                     [&](const Unmet& miss) { return miss.severity >= threshold; });
}

ClientPolicy implicit_policy(const ClientChoice& client, bool serves_traffic) {
  if (client.kind == ClientChoice::Kind::command) return {};
  ClientPolicy policy{.follows_settings = true, .payload_verbatim = true};
  // Where instances serve many operations each is one reference client, with its retry budget
  // and its circuit breaker (instance_guards.hpp).
  if (serves_traffic) {
    policy.retry_budget = client::kDefaultRetryRatio;
    policy.breaker = client::kDefaultBreaker;
  }
  return policy;
}

namespace {

// The records the world handed back, into the result.
void take_records(RunEvidence evidence, ScenarioResult& result) {
  // A scenario's provider keeps its whole journal (no --journal-limit): the run's evidence
  // is every entry from seq 1, or nothing can be judged from it.
  for (std::size_t i = 0; i < evidence.journal.size(); ++i) {
    check_invariant(evidence.journal[i].seq == i + 1,
                    "a run's journal holds every entry, from seq 1, in seq order");
  }
  result.journal = std::move(evidence.journal);
  result.jobs = std::move(evidence.jobs);
  result.planned = std::move(evidence.planned);
  result.stalls = std::move(evidence.stalls);
}

// Each planned kill of an instance under traffic that cut no operation short: the instance ran
// none from its time until traffic ended (or, over HTTP, had answered every one it ran when the
// signal landed), so the crash the scenario exists for never happened.
void note_kills_not_reached(const Scenario& scenario, ScenarioResult& result) {
  if (!scenario.traffic) return;
  std::map<int, std::size_t> came = kills_by_instance(result.invocations);
  std::map<int, std::size_t> planned;  // by instance: how many kills of it so far
  for (const InstanceKill& kill : scenario.traffic->kills) {
    if (++planned[kill.instance] <= came[kill.instance]) continue;
    result.inconclusive.push_back(
        {"the kill of " + kill.describe() +
             " cut no operation short: the instance ran none from then until traffic ended "
             "(or had answered each when the signal landed), so the crash the scenario exists "
             "for never happened",
         ""});
  }
}

// The verdicts' and the expectations' final word, with the machine's share taken out: what
// rests on time in a window the harness was stalled in is inconclusive (stalls.hpp).
void settle(const Scenario& scenario, ScenarioResult& result) {
  note_kills_not_reached(scenario, result);
  for (const InvocationResult& invocation : result.invocations) {
    if (!invocation.kill_missed) continue;
    result.inconclusive.push_back(
        {"invocation " + std::to_string(invocation.number()) + " " +
             not_reached(scenario.invocations.at(static_cast<std::size_t>(invocation.index)).kill),
         ""});
  }
  account_for_stalls(result.verdicts, result);
  settle_expectations(scenario, result);
  account_for_stalls_in_expectations(result);
}

ScenarioResult drive_fleet(const Scenario& scenario, const std::vector<InvocationPlan>& plans,
                           World& world, ScenarioResult result) {
  result.invocations = world.invoke_fleet(plans, scenario.fleet);
  take_records(world.finish(), result);
  const auto entries = charged_for(scenario, result.journal, result.invocations);
  record_charges(entries, result.invocations, true);
  const Evidence evidence_view(scenario, result.policy, result.invocations, result.journal,
                               result.jobs, entries);
  result.verdicts = judge(evidence_view);
  result.numbers = operator_numbers(evidence_view, SuccessBy::outcome_line);
  if (scenario.traffic) result.traffic = traffic_picture(evidence_view);
  settle(scenario, result);
  return result;
}

}  // namespace

ScenarioResult drive(const Scenario& given, const ClientChoice& client,
                     const ClientPolicy& declared, std::uint64_t seed, World& world) {
  // Traffic's operations are drawn from the run's seed: the scenario judged is the one drawn.
  const Scenario scenario = expand_traffic(given, seed);
  ScenarioResult result{
      .name = scenario.name,
      .description = scenario.description,
      .file = scenario.file.string(),
      .client = client.describe(),
      .seed = seed,
      .policy = judged_policy(
          scenario, declared.over(implicit_policy(client, world.serves_as_instances(scenario))))};
  result.expected_violations = scenario.expect.for_policy(result.policy.on_ambiguous).violations;
  result.concurrency = scenario.traffic ? scenario.traffic->instances : scenario.fleet.concurrency;
  result.outages = outage_windows(scenario);
  std::vector<InvocationPlan> plans;
  for (std::size_t i = 0; i < scenario.invocations.size(); ++i) {
    const Invocation& invocation = scenario.invocations[i];
    plans.push_back(
        {.index = static_cast<int>(i),
         .invocation = invocation,
         .payload = invocation.payload.value_or(scenario.operation(invocation.operation).payload),
         .client_seed = seed + i});
  }
  if (scenario.fleet.is_fleet() || scenario.traffic)
    return drive_fleet(scenario, plans, world, std::move(result));
  for (const InvocationPlan& plan : plans) {
    InvocationResult done = world.invoke(plan);
    // Invocations run one after another: each window starts after the last one ended (what
    // was journaled between two, when no client ran, is charged by its connection).
    check_invariant(result.invocations.empty()
                        ? done.first_seq == 1
                        : done.first_seq > result.invocations.back().last_seq,
                    "the first window of the journal starts at seq 1, and each later one after "
                    "the one before it ended");
    check_invariant(done.last_seq + 1 >= done.first_seq,
                    "an invocation's window of the journal does not end before it starts");
    result.invocations.push_back(std::move(done));
  }
  take_records(world.finish(), result);
  check_invariant(
      result.invocations.empty() || result.journal.size() >= result.invocations.back().last_seq,
      "the journal holds every entry the invocations' windows name");
  // Each request is charged by the connection it came on, not only by the window it fell in:
  // a killed client's late bytes are its own (attribution.hpp).
  const auto entries = charged_entries(result.journal, result.invocations, false);
  record_charges(entries, result.invocations, false);
  const Evidence evidence_view(scenario, result.policy, result.invocations, result.journal,
                               result.jobs, entries);
  result.verdicts = judge(evidence_view);
  // The operator's numbers only where the reports show the load: a run of one client at a
  // time without an outage reads as it always has.
  if (result.shows_load())
    result.numbers = operator_numbers(evidence_view, SuccessBy::outcome_line);
  if (scenario.traffic) result.traffic = traffic_picture(evidence_view);
  settle(scenario, result);
  return result;
}

}  // namespace retryproof::scenarios
