#include "scenarios/process/clock_probe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/duration.hpp"
#include "scenarios/process/retry_overhead.hpp"

namespace retryproof::scenarios {
namespace {

// Waits shorter than this at real time show nothing of a clock: a reconnect takes as long.
constexpr Millis kShortestTelling{20};

Scenario probe_scenario(Millis timeout) {
  return scenario_from_json(
      {{"name", "clock-probe"},
       {"description", "Two 503s, then a 201: how long the client waits between its creates."},
       {"plan", {{"faults", {"fail-before-commit", "fail-before-commit"}}}},
       {"operations",
        {{{"id", "retryproof:clock-probe"}, {"payload", {{"orderId", "probe"}, {"amount", 1}}}}}},
       {"client", {{"timeout", format_duration(timeout)}}}},
      "the clock probe");
}

// The client's waits between creates, from the provider's journal: from each answer to the
// next create. Empty when it did not retry.
std::optional<Millis> waited(const ScenarioResult& result) {
  const std::vector<Millis> gaps = retry_gaps(result.journal);
  if (gaps.empty()) return std::nullopt;
  return std::accumulate(gaps.begin(), gaps.end(), Millis(0));
}

// What the client did, without the times: its requests, their answers, what it reported.
std::string what_it_did(const ScenarioResult& result) {
  std::string text;
  for (const auto& entry : result.journal) {
    text +=
        entry.method + " " + (entry.status ? std::to_string(*entry.status) : "no answer") + ", ";
  }
  const auto& run = result.invocations.at(0);
  return text + (run.outcome ? to_string(run.outcome->outcome) : "no outcome (" + run.exit + ")");
}

std::string millis(std::optional<Millis> value) {
  return value ? std::to_string(value->count()) + " ms" : "nothing";
}

}  // namespace

ClockProbe::Finding judge_clock(std::optional<Millis> at_real_time, std::optional<Millis> at_scale,
                                TimeScale scale) {
  if (!at_real_time || !at_scale || *at_real_time < kShortestTelling) {
    return ClockProbe::Finding::unknown;
  }
  const double ratio =
      static_cast<double>(at_scale->count()) / static_cast<double>(at_real_time->count());
  return ratio >= std::sqrt(static_cast<double>(scale.factor())) ? ClockProbe::Finding::ignores
                                                                 : ClockProbe::Finding::follows;
}

std::string ClockProbe::describe() const {
  const std::string head = "time scale " + std::to_string(scale.factor()) + ": ";
  const std::string measured = "after two 503s it waited " + millis(waited_at_scale) +
                               " of scenario time at scale " + std::to_string(scale.factor()) +
                               ", " + millis(waited_at_real_time) + " at real time";
  const std::string instead = ". It is judged at real time instead, where its verdicts hold";
  switch (finding) {
    case Finding::follows:
      return head + "the client follows the scaled clock (" + measured + ")";
    case Finding::ignores:
      return head + "the client does not follow the scaled clock: " + measured +
             ", so it runs on the real clock (a statically linked program, or one that reads "
             "the clock by system calls, escapes libfaketime)" +
             instead;
    case Finding::behaves_differently:
      return head + "the client does other things at the scale than at real time (" + did_at_scale +
             "; at real time " + did_at_real_time +
             "): its own work between requests does not fit its timeouts divided by " +
             std::to_string(scale.factor()) + instead;
    case Finding::unknown:
      break;
  }
  return head + "could not tell whether the client follows the scaled clock (" + measured +
         "; a client that does not wait shows nothing of its clock)" + instead;
}

ClockProbe probe_client_clock(const RunOptions& options, Millis timeout) {
  const Scenario scenario = probe_scenario(timeout);
  RunOptions real_time = options;
  real_time.time_scale = TimeScale();
  const ScenarioResult at_real_time = run_scenario_once(scenario, real_time);
  const ScenarioResult at_scale = run_scenario_once(scenario, options);
  ClockProbe probe{.scale = options.time_scale,
                   .waited_at_real_time = waited(at_real_time),
                   .waited_at_scale = waited(at_scale)};
  probe.finding = judge_clock(probe.waited_at_real_time, probe.waited_at_scale, probe.scale);
  if (probe.finding == ClockProbe::Finding::follows &&
      what_it_did(at_real_time) != what_it_did(at_scale)) {
    probe.finding = ClockProbe::Finding::behaves_differently;
    probe.did_at_real_time = what_it_did(at_real_time);
    probe.did_at_scale = what_it_did(at_scale);
  }
  return probe;
}

SettledScale settle_time_scale(const RunOptions& options, Millis tightest_timeout) {
  SettledScale settled{.asked = options.time_scale, .used = options.time_scale};
  if (options.time_scale.is_real_time()) return settled;
  std::optional<Millis> overhead;
  // The reference client and the mutants follow it by construction: their clock is injected.
  if (options.client.kind == ClientChoice::Kind::command) {
    settled.probe = probe_client_clock(options, tightest_timeout);
    if (settled.probe->finding != ClockProbe::Finding::follows) {
      settled.used = TimeScale();
      return settled;  // judged at real time, where overhead counts once
    }
    overhead = probed_overhead(*settled.probe);
  }
  if (const auto measured = measure_no_wait_retry(options)) {
    overhead = std::max(overhead.value_or(*measured), *measured);
  }
  settled.retry_overhead = allowed_overhead(overhead);
  settled.overhead_note = describe_overhead(options.time_scale, overhead, settled.retry_overhead);
  return settled;
}

std::string to_string(ClockProbe::Finding finding) {
  switch (finding) {
    case ClockProbe::Finding::follows:
      return "follows";
    case ClockProbe::Finding::ignores:
      return "ignores";
    case ClockProbe::Finding::behaves_differently:
      return "behaves-differently";
    case ClockProbe::Finding::unknown:
      break;
  }
  return "unknown";
}

}  // namespace retryproof::scenarios
