// rapidcheck generators for fault schedules. A schedule shrinks toward one operation, no
// rerun, fewer and simpler faults ("none" first in every menu) and a smaller budget, and
// prints as a scenario file: a counterexample replays with `retryproof run FILE`.
#pragma once

#include <rapidcheck.h>

#include <ostream>

#include "scenarios/model/schedule.hpp"

namespace retryproof::scenarios {

inline void showValue(const Schedule& schedule, std::ostream& out) {
  out << to_scenario_json(schedule, "counterexample").dump(2);
}

inline void showValue(const KillPoint& kill, std::ostream& out) {
  out << kill.describe();
}

namespace generators {

inline rc::Gen<Schedule> schedule(FaultMenu menu) {
  const std::vector<std::string> faults = faults_in(menu);
  return rc::gen::apply(
      [](int operations, std::vector<std::string> script, int attempts, int base, int factor,
         int timeout, bool stripe, int rerun) {
        return Schedule{
            .operations = operations,
            .faults = std::move(script),
            .attempts = attempts,
            .base_delay_ms = base,
            .max_delay_ms = base * factor,
            .timeout_ms = std::array{100, 1000, 3000}[static_cast<std::size_t>(timeout)],
            .stripe = stripe,
            .rerun = static_cast<Rerun>(rerun)};
      },
      rc::gen::inRange(1, 4),
      // Up to six faults; shrinking removes them one by one, then simplifies each.
      rc::gen::resize(6, rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(faults))),
      rc::gen::inRange(1, 6), rc::gen::inRange(2, 201), rc::gen::inRange(1, 9),
      rc::gen::inRange(0, 3), rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 3));
}

// A kill point for the first invocation: none first, so that shrinking removes it.
inline rc::Gen<KillPoint> kill_point() {
  using When = KillPoint::When;
  return rc::gen::element(KillPoint{}, KillPoint{When::after_commit},
                          KillPoint{When::after_request, 1}, KillPoint{When::after_request, 2},
                          KillPoint{When::after_request, 3});
}

// A schedule whose first invocation may be killed (and then run again).
inline rc::Gen<Schedule> schedule_with_kill(FaultMenu menu) {
  return rc::gen::apply(
      [](Schedule schedule, KillPoint kill) {
        schedule.kill = kill;
        return schedule;
      },
      schedule(menu), kill_point());
}

}  // namespace generators
}  // namespace retryproof::scenarios
