#include "scenarios/process/clock_probe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/duration.hpp"
#include "scenarios/process/retry_overhead.hpp"

namespace retryproof::scenarios {
namespace {

const std::string kJudgedAtRealTime =
    ". It is judged at real time instead, where its verdicts hold";

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

std::string ClockProbe::finding_text() const {
  const std::string measured = "after two 503s it waited " + millis(waited_at_scale) +
                               " of scenario time at scale " + std::to_string(scale.factor()) +
                               ", " + millis(waited_at_real_time) + " at real time";
  switch (finding) {
    case Finding::follows:
      return "the client follows the scaled clock (" + measured + ")";
    case Finding::ignores:
      return "the client does not follow the scaled clock: " + measured +
             ", so it runs on the real clock (a statically linked program, or one that reads "
             "the clock by system calls, escapes libfaketime)";
    case Finding::behaves_differently:
      return "the client does other things at the scale than at real time (" + did_at_scale +
             "; at real time " + did_at_real_time +
             "): its own work between requests does not fit its timeouts divided by " +
             std::to_string(scale.factor());
    case Finding::unknown:
      break;
  }
  return "could not tell whether the client follows the scaled clock (" + measured +
         "; a client that does not wait shows nothing of its clock)";
}

std::string ClockProbe::describe() const {
  return "time scale " + std::to_string(scale.factor()) + ": " + finding_text() +
         (finding == Finding::follows ? "" : kJudgedAtRealTime);
}

std::string SettledScale::probe_text() const {
  if (!probe) return "";
  if (too_fast.empty()) return probe->describe();
  std::string text = "time scale " + std::to_string(asked.factor()) + ": ";
  for (const ClockProbe& higher : too_fast) {
    if (higher.scale != asked) text += "at scale " + std::to_string(higher.scale.factor()) + ", ";
    text += higher.finding_text() + "; ";
  }
  text += "at scale " + std::to_string(probe->scale.factor()) + ", " + probe->finding_text();
  return text + (probe->finding == ClockProbe::Finding::follows
                     ? ", so it runs at scale " + std::to_string(probe->scale.factor())
                     : kJudgedAtRealTime);
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
    // A client whose own work does not fit its timeouts divided by N may fit them divided by
    // less: it runs at the largest of N, N/2, ... 2 at which it does what it does at real time.
    while (settled.probe->finding == ClockProbe::Finding::behaves_differently &&
           settled.probe->scale.factor() > 2) {
      settled.too_fast.push_back(*settled.probe);
      RunOptions lower = options;
      lower.time_scale = TimeScale(settled.probe->scale.factor() / 2);
      settled.probe = probe_client_clock(lower, tightest_timeout);
    }
    if (settled.probe->finding != ClockProbe::Finding::follows) {
      settled.used = TimeScale();
      return settled;  // judged at real time, where overhead counts once
    }
    settled.used = settled.probe->scale;
    overhead = probed_overhead(*settled.probe);
  }
  if (const auto measured = measure_no_wait_retry(options)) {
    overhead = std::max(overhead.value_or(*measured), *measured);
  }
  settled.retry_overhead = allowed_overhead(overhead);
  settled.overhead_note = describe_overhead(settled.used, overhead, settled.retry_overhead);
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
