// retry-budget (policy): a service instance that declares a retry budget keeps to it. Under
// steady traffic each instance is one long-lived client; its retries (every request of an
// operation after its first: a create sent again, or a lookup after an outcome it could not
// see — both load on a failing service) are counted against its first requests, over the whole run:
// at most the declared share of them, plus the retries a full bucket starts with (declared
// with the budget, retry-budget=20%/100, or 10), again for each restart.
// A fleet without budgets sends (1 + retries) times the load in a long outage; with them, about the
// load that arrives anyway (Brooker 2022; Google SRE, Handling Overload).
#include <algorithm>
#include <cstdio>
#include <map>

#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios::checkers {
namespace {

constexpr std::size_t kMostSeqsShown = 20;  // of an instance's retries, as its evidence

struct InstanceCount {
  int first = 0;
  int retries = 0;
  std::vector<std::uint64_t> retry_seqs;
  int last_process = 0;  // the last of the instance's processes that ran an operation
};

std::string share(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace

Verdict retry_budget(const Evidence& evidence) {
  const std::optional<double> budget = evidence.policy().retry_budget;
  if (!budget) return not_applicable("no retry budget declared (retry-budget=P%)");
  const auto& invocations = evidence.invocations();
  if (std::none_of(invocations.begin(), invocations.end(),
                   [](const InvocationResult& invocation) { return invocation.instance; })) {
    return not_applicable(
        "a retry budget is a long-lived client's: judged where instances serve many operations "
        "(traffic, or run --sessions)");
  }
  std::map<int, InstanceCount> instances;
  for (const InvocationResult& invocation : evidence.invocations()) {
    InstanceCount& count = instances[invocation.instance.value_or(-1)];
    count.last_process = std::max(count.last_process, invocation.process);
    for (const LoadRequest& request : load_requests(evidence, invocation)) {
      if (request.first) {
        ++count.first;
      } else {
        ++count.retries;
        count.retry_seqs.push_back(request.entry->seq);
      }
    }
  }
  Violations violations;
  int first = 0;
  int retries = 0;
  for (const auto& [instance, count] : instances) {
    first += count.first;
    retries += count.retries;
    // A restarted process (after a kill under traffic, or a crash) begins with a full bucket,
    // as a real one would.
    const double lives = 1.0 + count.last_process;
    const double allowed = *budget * count.first + evidence.policy().retry_burst * lives;
    if (count.retries <= allowed + 1e-9) continue;
    std::vector<std::uint64_t> seqs = count.retry_seqs;
    if (seqs.size() > kMostSeqsShown) seqs.resize(kMostSeqsShown);
    violations.add(
        "instance " + std::to_string(instance + 1) + " sent " + std::to_string(count.retries) +
            " retries for " + std::to_string(count.first) + " first requests, where its declared " +
            share(*budget * 100) + "% budget allows " + share(allowed) + " (" +
            share(*budget * 100) + "% of them, and " +
            std::to_string(static_cast<int>(evidence.policy().retry_burst)) + " to start from" +
            (lives > 1 ? " in each of its " + std::to_string(static_cast<int>(lives)) + " processes"
                       : std::string()) +
            ")",
        std::move(seqs));
  }
  if (first == 0) return not_applicable("no operation sent a request");
  return std::move(violations)
      .verdict("the fleet's " + std::to_string(instances.size()) + " instances sent " +
               std::to_string(retries) + " retries for " + std::to_string(first) +
               " first requests (" + share(static_cast<double>(retries) / first) +
               " per first request), each within its declared " + share(*budget * 100) + "%");
}

}  // namespace retryproof::scenarios::checkers
