// The whole result model as JSON: what a program reads back (and `--json FILE` writes).
#include "common/utf8.hpp"
#include "scenarios/reports/load_reports.hpp"
#include "scenarios/reports/reports.hpp"
#include "scenarios/reports/text.hpp"
#include "scenarios/reports/traffic_reports.hpp"
#include "scenarios/reports/view.hpp"

namespace retryproof::scenarios {
namespace {

using nlohmann::json;
using namespace reports;

json verdict_json(const Verdict& verdict) {
  json result = {{"id", valid_utf8(verdict.id)},
                 {"status", to_string(verdict.status)},
                 {"severity", to_string(verdict.severity)},
                 {"explanation", valid_utf8(verdict.explanation)},
                 {"evidence", verdict.evidence}};
  // What it lacked, under the name a reader of an inconclusive verdict looks for.
  if (verdict.status == VerdictStatus::inconclusive)
    result["reason"] = valid_utf8(verdict.explanation);
  return result;
}

json planned_json(const ScenarioResult& result) {
  json planned = json::array();
  for (const provider::PlanUse& use : result.planned) {
    planned.push_back({{"source", use.source},
                       {"fault", valid_utf8(use.fault)},
                       {"target", valid_utf8(use.target)},
                       {"askedFor", use.asked_for},
                       {"fired", use.fired},
                       {"compared", use.compared},
                       {"lookupsFired", use.lookups_fired},
                       {"optional", use.optional},
                       {"text", valid_utf8(use.describe())}});
  }
  return planned;
}

json stalls_json(const ScenarioResult& result) {
  json stalls = json::array();
  for (const Stall& stall : result.stalls) {
    stalls.push_back({{"fromMs", stall.from.count()},
                      {"untilMs", stall.until.count()},
                      {"what", valid_utf8(stall.what)}});
  }
  return stalls;
}

json inconclusive_json(const ScenarioResult& result) {
  json reasons = json::array();
  for (const Inconclusive& reason : result.inconclusive) {
    reasons.push_back({{"reason", valid_utf8(reason.text)},
                       {"verdict", reason.verdict.empty() ? json(nullptr) : json(reason.verdict)}});
  }
  return reasons;
}

json inconclusive_verdicts_json(const ScenarioResult& result) {
  json ids = json::array();
  for (const Verdict& verdict : result.verdicts) {
    if (verdict.status == VerdictStatus::inconclusive) ids.push_back(verdict.id);
  }
  return ids;
}

json invocation_json(const InvocationResult& invocation) {
  json out = {
      {"index", invocation.index},
      {"number", invocation.number()},
      {"operation", valid_utf8(invocation.operation)},
      {"payload", clean_json(invocation.payload)},
      {"killed", invocation.killed},
      {"outcome", invocation.outcome ? clean_json(invocation.outcome->line) : json(nullptr)},
      {"clientError", valid_utf8(invocation.client_error)},
      {"exit", valid_utf8(invocation.exit)},
      {"standardError", valid_utf8(invocation.standard_error)},
      {"firstSeq", invocation.first_seq},
      {"lastSeq", invocation.last_seq},
      {"startedAtMs", invocation.started_at.count()},
      {"endedAtMs", invocation.ended_at.count()}};
  // Requests on its connections read after its window closed: charged to it, not to the
  // window they fell in. Only when there are any.
  if (!invocation.late_seqs.empty()) out["lateSeqs"] = invocation.late_seqs;
  // A fleet client's own requests, which its window does not tell apart from the others'.
  if (!invocation.seqs.empty()) out["seqs"] = invocation.seqs;
  if (invocation.cpu) out["cpuMs"] = invocation.cpu->count();
  // Under traffic: the instance that served it, and, for a rerun after a kill, the number of
  // its operation's first run. Both counted from 1, as reports count.
  if (invocation.instance) out["instance"] = *invocation.instance + 1;
  if (invocation.rerun_of) out["rerunOf"] = *invocation.rerun_of + 1;
  return out;
}

json unmet_json(const std::vector<Unmet>& unmet) {
  json result = json::array();
  for (const Unmet& miss : unmet)
    result.push_back(
        {{"expectation", valid_utf8(miss.text)}, {"severity", to_string(miss.severity)}});
  return result;
}

json policy_json(const JudgedPolicy& policy) {
  json out = {{"attempts", policy.attempts},
              {"minBackoffMs", policy.min_backoff.count()},
              {"timeoutMs", policy.timeout.count()},
              {"onAmbiguous", to_string(policy.on_ambiguous)},
              {"followsSettings", policy.follows_settings}};
  if (policy.retry_budget) {
    out["retryBudget"] = {{"share", *policy.retry_budget}, {"burst", policy.retry_burst}};
  }
  if (policy.breaker) {
    out["breaker"] = {{"failures", policy.breaker->failures},
                      {"openForMs", policy.breaker->open_for.count()}};
  }
  return out;
}

json scenario_json(const ScenarioResult& result) {
  json verdicts = json::array();
  for (const auto& verdict : result.verdicts)
    verdicts.push_back(verdict_json(verdict));
  json invocations = json::array();
  for (const auto& invocation : result.invocations)
    invocations.push_back(invocation_json(invocation));
  json scenario = {
      {"name", valid_utf8(result.name)},
      {"description", valid_utf8(result.description)},
      {"file", valid_utf8(result.file)},
      {"client", valid_utf8(result.client)},
      {"seed", result.seed},
      {"met", result.met()},
      {"status", to_string(result.status())},
      {"unmet", unmet_json(result.unmet)},
      {"inconclusive", inconclusive_json(result)},
      {"inconclusiveVerdicts", inconclusive_verdicts_json(result)},
      {"planned", planned_json(result)},
      {"stalls", stalls_json(result)},
      {"policy", policy_json(result.policy)},
      {"expectedViolations", strings_json(result.expected_violations)},
      {"posts", result.creates()},
      // The scale it ran at, and why when that is below the run's (scale_guard.hpp).
      {"scale", result.scale},
      {"scaleWhy", result.scale_why.empty() ? json(nullptr) : json(valid_utf8(result.scale_why))},
      {"verdicts", std::move(verdicts)},
      {"invocations", std::move(invocations)},
      {"journal", clean_json(json(result.journal))},
      {"jobs", clean_json(json(result.jobs))}};
  // Only where they apply, so that a scenario of one client at a time reads as it did.
  if (result.numbers) scenario["operations"] = numbers_json(*result.numbers);
  if (result.shows_load()) scenario["load"] = load_json(result);
  if (result.traffic) scenario["traffic"] = reports::traffic_json(*result.traffic);
  if (!result.origins.empty()) {
    scenario["journalFiles"] = strings_json(result.journal_files);
    json origins = json::array();
    for (std::size_t i = 0; i < result.origins.size(); ++i) {
      origins.push_back({{"seq", i + 1},
                         {"journal", result.origins[i].journal},
                         {"journalSeq", result.origins[i].seq}});
    }
    scenario["origins"] = std::move(origins);
  }
  return scenario;
}

// time_scale_json's, and "lowered": the names of the scenarios that ran below it.
json time_scale_json(const RunSummary& run) {
  json scale = reports::time_scale_json(run.time_scale);
  scale["lowered"] = strings_json(ran_below_scale(run));
  return scale;
}

}  // namespace

json reports::strings_json(const std::vector<std::string>& strings) {
  json result = json::array();
  for (const auto& text : strings)
    result.push_back(valid_utf8(text));
  return result;
}

json reports::time_scale_json(const RunTimeScale& scale) {
  return {{"asked", scale.asked},
          {"used", scale.used},
          {"clockProbe", scale.probe_finding.empty() ? json(nullptr)
                                                     : json{{"finding", scale.probe_finding},
                                                            {"text", valid_utf8(scale.probe)}}},
          {"retryOverhead", scale.overhead.empty() ? json(nullptr)
                                                   : json{{"allowedMs", scale.overhead_allowed_ms},
                                                          {"text", valid_utf8(scale.overhead)}}}};
}

json to_json(const RunSummary& run) {
  json scenarios = json::array();
  for (const auto& result : run.results)
    scenarios.push_back(scenario_json(result));
  const std::size_t met = count_met(run);
  const std::size_t undecided = count_inconclusive(run);
  json report = {{"version", RETRYPROOF_VERSION},  // of retryproof: the format may grow with it
                 {"seed", run.seed},
                 {"client", valid_utf8(run.client)},
                 {"timeScale", time_scale_json(run)},
                 {"summary",
                  {{"scenarios", run.results.size()},
                   {"met", met},
                   {"notMet", run.results.size() - met},  // failed or inconclusive
                   {"failed", run.results.size() - met - undecided},
                   {"inconclusive", undecided},
                   {"inconclusiveAs", to_string(run.inconclusive_as)},
                   {"withHarm", std::count_if(run.results.begin(), run.results.end(),
                                              [](const ScenarioResult& result) {
                                                return worst_miss(result) == Severity::harm;
                                              })}}},
                 {"scenarios", std::move(scenarios)}};
  if (run.journal_share) {
    report["judged"] = run.journal_share->judged;
    report["of"] = run.journal_share->of;
  }
  return report;
}

}  // namespace retryproof::scenarios
