#include "scenarios/time_scale_option.hpp"

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
          "Run N times faster: the provider's clock, its delays and Retry-After, the scenario's "
          "time limits and the client's clock (the reference client and mutants through their "
          "clock, an external program under libfaketime). An external client that does not "
          "follow the scaled clock is detected first, and judged at real time instead")
      ->capture_default_str()
      ->check(whole_factor);
}

}  // namespace retryproof::scenarios
