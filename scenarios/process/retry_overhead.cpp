#include "scenarios/process/retry_overhead.hpp"

#include <algorithm>

namespace retryproof::scenarios {
namespace {

// Three 503s before commit, then a 201: three retries, each at once for the no-backoff mutant.
Scenario calibration_scenario() {
  return scenario_from_json(
      {{"name", "retry-overhead"},
       {"description", "Three 503s, then a 201, for a client that retries at once."},
       {"plan", {{"faults", {"fail-before-commit", "fail-before-commit", "fail-before-commit"}}}},
       {"operations",
        {{{"id", "retryproof:retry-overhead"}, {"payload", {{"orderId", "overhead"}}}}}},
       {"client", {{"attempts", 4}}}},
      "the retry-overhead measurement");
}

}  // namespace

std::vector<Millis> retry_gaps(const std::vector<provider::JournalEntry>& journal) {
  std::vector<Millis> gaps;
  const provider::JournalEntry* previous = nullptr;
  for (const auto& entry : journal) {
    if (entry.kind != provider::RequestKind::create) continue;
    if (previous != nullptr)
      gaps.push_back(entry.at - previous->answered_at.value_or(previous->at));
    previous = &entry;
  }
  return gaps;
}

std::optional<Millis> longest_retry_gap(const std::vector<provider::JournalEntry>& journal) {
  const std::vector<Millis> gaps = retry_gaps(journal);
  if (gaps.empty()) return std::nullopt;
  return *std::max_element(gaps.begin(), gaps.end());
}

std::optional<Millis> probed_overhead(const ClockProbe& probe) {
  if (!probe.waited_at_real_time || !probe.waited_at_scale || probe.scale.is_real_time()) {
    return std::nullopt;
  }
  constexpr int kProbeRetries = 2;  // after each of its two 503s
  const Millis extra = std::max(Millis(0), *probe.waited_at_scale - *probe.waited_at_real_time);
  return extra / ((probe.scale.factor() - 1) * kProbeRetries);
}

Millis allowed_overhead(std::optional<Millis> measured) {
  return std::max(kLeastRetryOverhead, measured.value_or(Millis(0)) * kOverheadMargin);
}

std::optional<Millis> measure_no_wait_retry(const RunOptions& options) {
  RunOptions real_time = options;
  real_time.client = {ClientChoice::Kind::mutant, client::Mutant::no_backoff, {}};
  real_time.time_scale = TimeScale();
  return longest_retry_gap(run_scenario_once(calibration_scenario(), real_time).journal);
}

std::string describe_overhead(TimeScale scale, std::optional<Millis> measured, Millis allowed) {
  const std::string head = "time scale " + std::to_string(scale.factor()) + ": ";
  const std::string allows = "the scale guard allows " + std::to_string(allowed.count()) +
                             " ms for one (" + std::to_string(kLeastRetryOverhead.count()) +
                             " at least, " + std::to_string(kOverheadMargin) +
                             " times the longest measured)";
  if (!measured) return head + "a retry that does not wait at all could not be measured; " + allows;
  return head + "a retry that does not wait at all took up to " +
         std::to_string(measured->count()) + " ms here; " + allows;
}

}  // namespace retryproof::scenarios
