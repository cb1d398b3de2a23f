#include "scenarios/evidence/fleet.hpp"

#include <algorithm>
#include <set>

#include "provider/fault_plan.hpp"
#include "scenarios/evidence/checkers/violations.hpp"

namespace retryproof::scenarios {

std::map<int, std::size_t> kills_by_instance(const std::vector<InvocationResult>& invocations) {
  std::map<int, std::set<int>> processes;
  for (const InvocationResult& invocation : invocations) {
    if (invocation.killed && invocation.instance)
      processes[*invocation.instance].insert(invocation.process);
  }
  std::map<int, std::size_t> kills;
  for (const auto& [instance, killed] : processes)
    kills[instance] = killed.size();
  return kills;
}

std::vector<OutageWindow> outage_windows(const Scenario& scenario) {
  std::vector<OutageWindow> windows;
  if (scenario.plan.is_null()) return windows;  // a scenario built in code, with no plan
  // The plan was validated when the scenario was loaded; the provider reads it the same way.
  const provider::FaultPlan plan = provider::FaultPlan::from_json(scenario.plan);
  for (const provider::Outage& outage : plan.outages())
    windows.push_back({outage.from, outage.until, outage.rate >= 1 && !outage.slowdown});
  return windows;
}

std::vector<LoadRequest> load_requests(const Evidence& evidence,
                                       const InvocationResult& invocation) {
  std::vector<LoadRequest> requests;
  for (const JournalEntry& entry : evidence.entries_of(invocation)) {
    if (entry.kind == provider::RequestKind::create || entry.kind == provider::RequestKind::lookup)
      requests.push_back({&entry, requests.empty()});
  }
  return requests;
}

bool failed_for_client(const JournalEntry& entry, Millis timeout) {
  if (entry.delivery != provider::Delivery::respond) return true;
  if (!entry.answered_at || *entry.answered_at - entry.at > timeout) return true;
  switch (checkers::meaning_of(entry)) {
    case provider::Meaning::rate_limited:
    case provider::Meaning::unavailable:
    case provider::Meaning::hidden:
    case provider::Meaning::server_error:
      return true;
    default:
      return false;
  }
}

namespace {

// When the failure reached the client: its answer, the end of its connection, or its
// timeout, whichever came first.
Millis failed_at(const JournalEntry& entry, Millis timeout) {
  Millis at = entry.at + timeout;
  if (entry.answered_at) at = std::min(at, *entry.answered_at);
  if (entry.abandoned_at) at = std::min(at, *entry.abandoned_at);
  return at;
}

}  // namespace

std::vector<Retry> retries(const Evidence& evidence) {
  const Millis timeout = evidence.policy().timeout;
  std::vector<Retry> found;
  for (const InvocationResult& invocation : evidence.invocations()) {
    const std::vector<const JournalEntry*> entries = evidence.creates_of(invocation);
    int number = 0;
    for (std::size_t i = 0; i + 1 < entries.size(); ++i) {
      if (!failed_for_client(*entries[i], timeout)) continue;
      // A client whose own timeout is shorter than the one it is judged by retried before
      // the moment computed here: it waited nothing.
      const Millis wait = std::max(Millis(0), entries[i + 1]->at - failed_at(*entries[i], timeout));
      found.push_back({entries[i], entries[i + 1], wait, ++number});
    }
  }
  return found;
}

}  // namespace retryproof::scenarios
