#include "scenarios/evidence/budget_replay.hpp"

#include <algorithm>
#include <map>

#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios {
namespace {

// The replay sees requests in the order they reached the provider; an instance's operations
// decide on their own threads, in an order a little different. A token's worth of slack keeps
// that from making a red, and still fails a client that stops with its bucket all but full.
constexpr double kOrderSlack = 1.0;

struct Level {
  Millis at{0};
  double tokens = 0;
};

bool is_request(const JournalEntry& entry) {
  return entry.kind == provider::RequestKind::create || entry.kind == provider::RequestKind::lookup;
}

}  // namespace

std::vector<bool> stopped_by_budget(const Evidence& evidence) {
  const auto& invocations = evidence.invocations();
  std::vector<bool> stopped(invocations.size(), false);
  const std::optional<double> share = evidence.policy().retry_budget;
  if (!share) return stopped;
  std::map<std::uint64_t, std::size_t> charged;  // seq -> invocation
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    for (const JournalEntry& entry : evidence.entries_of(invocations[i]))
      if (is_request(entry)) charged[entry.seq] = i;
  }
  // A client run per operation has no instance: its own bucket, full each time, is never spent.
  // A restarted process begins with a full one: the buckets are the processes'.
  const auto instance_of = [&](std::size_t i) -> std::optional<int> {
    if (!invocations[i].instance) return std::nullopt;
    return guards_of(invocations[i]);
  };
  std::map<int, double> tokens;
  std::map<int, std::vector<Level>> levels;
  std::vector<bool> started(invocations.size(), false);
  for (const auto& [seq, i] : charged) {
    if (!instance_of(i)) continue;
    const int instance = *instance_of(i);
    const double full = evidence.policy().retry_burst;
    double& bucket = tokens.try_emplace(instance, full).first->second;
    const JournalEntry& entry = evidence.journal().at(seq - 1);
    const bool first = !started[i];
    started[i] = true;
    if (!first) bucket = std::max(0.0, bucket - 1);
    // Budgets fill on different requests: each first request (Finagle's, Envoy's, the
    // reference client's) or each success (the AWS SDKs' quota). The replay fills only on what
    // both do, a first request that succeeded, so it never holds more than a client's bucket.
    if (first && checkers::meaning_of(entry) == provider::Meaning::success)
      bucket = std::min(full, bucket + *share);
    levels[instance].push_back({entry.at, bucket});
  }
  for (std::size_t i = 0; i < invocations.size(); ++i) {
    const auto entries = evidence.entries_of(invocations[i]);
    if (entries.empty() || !instance_of(i)) continue;
    // A client takes a retry's token when it decides to retry, and sends it after its backoff:
    // the retries its instance had decided on when this one stopped arrive up to the longest
    // backoff later, and are counted against the bucket it saw.
    const Millis from = entries.back().at;
    const Millis until = invocations[i].ended_at + evidence.policy().max_backoff;
    for (const Level& level : levels[*instance_of(i)]) {
      if (level.at >= from && level.at <= until && level.tokens < 1 + kOrderSlack - 1e-9) {
        stopped[i] = true;
        break;
      }
    }
  }
  return stopped;
}

}  // namespace retryproof::scenarios
