#include "scenarios/commands/time_scale_option.hpp"

#include <charconv>

#include "common/time_scale.hpp"

namespace retryproof::scenarios {

void add_time_scale_option(CLI::App& command, int& factor) {
  const CLI::Validator whole_factor(
      [](std::string& text) -> std::string {
        int value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc{} && end == text.data() + text.size() && value >= 1 &&
            value <= TimeScale::kMaxFactor) {
          return {};
        }
        return "\"" + text + "\" is not a time scale: give a whole number from 1 (real time) to " +
               std::to_string(TimeScale::kMaxFactor) + ", such as 10";
      },
      "1.." + std::to_string(TimeScale::kMaxFactor));
  command
      .add_option(
          "--time-scale", factor,
          "Run up to N times faster: the provider's clock, its delays and Retry-After, the "
          "scenario's time limits and the client's clock (the reference client and mutants "
          "through their clock, an external program under libfaketime). Each scenario runs once, "
          "at the largest scale up to N at which a retry that does not wait at all cannot pass "
          "for one that waited (the report says which ran lower, and why). An external client "
          "that does not follow the scaled clock is detected first, and judged at real time")
      ->capture_default_str()
      ->check(whole_factor);
}

RunTimeScale settle_for_run(RunOptions& options, Millis tightest_timeout) {
  const SettledScale settled = settle_time_scale(options, tightest_timeout);
  options.time_scale = settled.used;
  options.retry_overhead = settled.retry_overhead;
  RunTimeScale reported{.asked = settled.asked.factor(), .used = settled.used.factor()};
  if (settled.probe) {
    reported.probe_finding = to_string(settled.probe->finding);
    reported.probe = settled.probe_text();
  }
  if (!settled.overhead_note.empty()) {
    reported.overhead_allowed_ms = static_cast<int>(settled.retry_overhead.count());
    reported.overhead = settled.overhead_note;
  }
  return reported;
}

}  // namespace retryproof::scenarios
