// A hand-built run of one retry, for the scale guard's tests and properties
// (scale_guard_test.cpp, property_tests/scale_choice_properties_test.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "scenarios/driver/scale_guard.hpp"

namespace retryproof::scenarios::scale_guard_fixture {

inline const Scenario kScenario = scenario_from_json(
    {{"name", "guarded"}, {"operations", {{{"id", "op"}, {"payload", {{"orderId", "o"}}}}}}},
    "scale guard test");

// Two creates of one invocation: a first answered with `status` at 1000 ms (carrying
// `retry_after` seconds), and a retry `gap` ms after it. Floor 50 ms unless given.
inline ScenarioResult retried(std::int64_t gap, int status = 503,
                              std::optional<int> retry_after = {}, std::int64_t floor = 50) {
  using provider::JournalEntry;
  ScenarioResult result;
  result.policy = JudgedPolicy{.min_backoff = Millis(floor), .timeout = Millis(1000)};
  JournalEntry first{.seq = 1,
                     .at = Millis(1000),
                     .method = "POST",
                     .path = "/jobs",
                     .kind = provider::RequestKind::create,
                     .answered_at = Millis(1000),
                     .status = status,
                     .retry_after_seconds = retry_after};
  first.key = "op";
  JournalEntry second = first;
  second.seq = 2;
  second.at = second.answered_at.value() + Millis(gap);
  second.answered_at = second.at;
  second.status = 201;
  result.journal = {first, second};
  result.invocations = {InvocationResult{.operation = "op", .first_seq = 1, .last_seq = 2}};
  return result;
}

}  // namespace retryproof::scenarios::scale_guard_fixture
