#include "scenarios/evidence/budget_replay.hpp"

#include <algorithm>
#include <map>

#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios {
namespace {

struct Level {
  Millis at{0};
  double tokens = 0;
};

bool is_request(const JournalEntry& entry) {
  return entry.kind == provider::RequestKind::create || entry.kind == provider::RequestKind::lookup;
}

}  // namespace

std::vector<bool> stopped_by_budget(const Evidence& evidence) {
  const Scenario& scenario = evidence.scenario();
  const auto& invocations = evidence.invocations();
  std::vector<bool> stopped(invocations.size(), false);
  const std::optional<double> share = evidence.policy().retry_budget;
  if (!scenario.traffic || !share) return stopped;
  std::map<std::uint64_t, std::size_t> charged;  // seq -> invocation
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    for (const JournalEntry& entry : evidence.entries_of(invocations[i]))
      if (is_request(entry)) charged[entry.seq] = i;
  }
  const auto instance_of = [&](std::size_t i) {
    return scenario.invocations.at(static_cast<std::size_t>(invocations[i].index)).instance;
  };
  std::map<int, double> tokens;
  std::map<int, std::vector<Level>> levels;
  std::vector<bool> started(invocations.size(), false);
  for (const auto& [seq, i] : charged) {
    const int instance = instance_of(i);
    double& bucket = tokens.try_emplace(instance, kRetryBudgetBurst).first->second;
    if (!started[i]) {
      bucket = std::min(kRetryBudgetBurst, bucket + *share);
      started[i] = true;
    } else {
      bucket = std::max(0.0, bucket - 1);
    }
    levels[instance].push_back({evidence.journal().at(seq - 1).at, bucket});
  }
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    const auto entries = evidence.entries_of(invocations[i]);
    if (entries.empty()) continue;
    const Millis from = entries.back().at;
    for (const Level& level : levels[instance_of(i)]) {
      if (level.at >= from && level.at <= invocations[i].ended_at && level.tokens < 1 - 1e-9) {
        stopped[i] = true;
        break;
      }
    }
  }
  return stopped;
}

}  // namespace retryproof::scenarios
