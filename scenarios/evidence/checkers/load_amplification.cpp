// load-amplification (policy): in an outage a fleet adds no more load than its clients'
// budget. Every request that arrived while the service was down is counted against the
// operations that needed the service then: creates per operation at most the declared
// attempts (or 1 plus a declared retry budget), and lookups per operation at most the
// attempts — one reconciliation per attempt (an attempt the client itself timed out may
// never have reached the service, so lookups are not compared with creates). Retry policies are the
// commonest sustaining cause of metastable failures (Huang et al., OSDI 2022): the load a client
// adds to an outage is what keeps the service down after its trigger is gone.
#include <cmath>
#include <cstdio>
#include <set>

#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios::checkers {
namespace {

std::string ratio(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace

Verdict load_amplification(const Evidence& evidence) {
  const std::vector<OutageWindow> outages = outage_windows(evidence.scenario());
  if (outages.empty()) return not_applicable("no outage: nothing to amplify");
  const auto in_outage = [&](const JournalEntry& entry) {
    return std::any_of(outages.begin(), outages.end(),
                       [&](const OutageWindow& window) { return window.holds(entry.at); });
  };
  const JudgedPolicy& policy = evidence.policy();
  double budget = policy.retry_budget ? 1.0 + *policy.retry_budget : policy.attempts;

  std::size_t operations = 0;
  std::size_t creates = 0;
  std::size_t lookups = 0;
  std::vector<std::uint64_t> seqs;  // the requests of the worst operation
  std::size_t worst = 0;
  for (const InvocationResult& invocation : evidence.invocations()) {
    std::vector<std::uint64_t> own;
    std::size_t own_creates = 0;
    for (const JournalEntry& entry : evidence.entries_of(invocation)) {
      if (!in_outage(entry)) continue;
      if (entry.kind == provider::RequestKind::create) ++own_creates;
      if (entry.kind == provider::RequestKind::lookup) ++lookups;
      own.push_back(entry.seq);
    }
    if (own.empty()) continue;
    ++operations;
    creates += own_creates;
    if (own_creates > worst) {
      worst = own_creates;
      seqs = std::move(own);
    }
  }
  if (operations == 0) return not_applicable("no client sent a request during the outage");
  // Where instances serve many operations a budget is an instance's, and each may begin with
  // a full bucket.
  std::set<int> instances;
  for (const InvocationResult& invocation : evidence.invocations())
    if (invocation.instance) instances.insert(*invocation.instance);
  if (policy.retry_budget && !instances.empty()) {
    budget += policy.retry_burst * static_cast<double>(instances.size()) /
              static_cast<double>(operations);
  }
  const std::string budget_text =
      policy.retry_budget
          ? ratio(budget) + " (1 plus the declared retry budget" +
                (!instances.empty() ? ", and each instance's first " +
                                          std::to_string(int(evidence.policy().retry_burst)) + ")"
                                    : std::string(")"))
          : std::to_string(policy.attempts) + ", the attempts (" + policy.attempts_text() + ")";
  const double per_operation = static_cast<double>(creates) / static_cast<double>(operations);
  const std::string counted = std::to_string(creates) + " creates and " + std::to_string(lookups) +
                              " lookups from " + std::to_string(operations) +
                              " operations during the outage";
  Violations violations;
  if (per_operation > budget + 1e-9) {
    violations.add("the fleet amplified the outage: " + counted + ", " + ratio(per_operation) +
                       " creates per operation where the budget is " + budget_text +
                       "; the worst operation sent " + std::to_string(worst),
                   seqs);
  }
  const double lookups_per_operation =
      static_cast<double>(lookups) / static_cast<double>(operations);
  if (lookups_per_operation > policy.attempts + 1e-9) {
    violations.add("the fleet looked its keys up in a loop during the outage (" + counted +
                       "): " + ratio(lookups_per_operation) +
                       " lookups per operation, where one per attempt allows " +
                       std::to_string(policy.attempts),
                   seqs);
  }
  return std::move(violations)
      .verdict(counted + ": " + ratio(per_operation) + " creates per operation, within " +
               budget_text);
}

}  // namespace retryproof::scenarios::checkers
