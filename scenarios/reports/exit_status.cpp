#include "scenarios/reports/exit_status.hpp"

#include <algorithm>
#include <stdexcept>

namespace retryproof::scenarios {

InconclusiveAs parse_inconclusive_as(std::string_view text) {
  if (text == "not-met") return InconclusiveAs::not_met;
  if (text == "pass") return InconclusiveAs::pass;
  if (text == "fail") return InconclusiveAs::fail;
  throw std::invalid_argument("--inconclusive " + std::string(text) +
                              ": write not-met (exit 3, the default), pass or fail");
}

std::string to_string(InconclusiveAs as) {
  switch (as) {
    case InconclusiveAs::pass:
      return "pass";
    case InconclusiveAs::fail:
      return "fail";
    case InconclusiveAs::not_met:
      break;
  }
  return "not-met";
}

std::string inconclusive_option_help() {
  return "How a scenario the run could not judge (a planned fault that never fired, entries "
         "missing from the journal, the harness itself stalled) counts: not-met (the default: "
         "exit 3 when nothing failed), pass (exit 0) or fail (exit 1)";
}

int exit_status(const std::vector<ScenarioResult>& results, Severity fail_on,
                InconclusiveAs inconclusive) {
  const bool failed = std::any_of(results.begin(), results.end(),
                                  [&](const ScenarioResult& r) { return r.fails_at(fail_on); });
  if (failed) return kExitFailed;
  // Under --fail-on harm a scenario with policy misses alone may still hold an inconclusive
  // verdict: what it could not tell might have been harm.
  const bool undecided = std::any_of(results.begin(), results.end(), [](const ScenarioResult& r) {
    return !r.inconclusive.empty();
  });
  if (!undecided) return kExitMet;
  switch (inconclusive) {
    case InconclusiveAs::pass:
      return kExitMet;
    case InconclusiveAs::fail:
      return kExitFailed;
    case InconclusiveAs::not_met:
      break;
  }
  return kExitInconclusive;
}

void explain_exit_status(std::ostream& out, const std::vector<ScenarioResult>& results,
                         Severity fail_on, InconclusiveAs inconclusive, int status) {
  const auto undecided = std::count_if(results.begin(), results.end(), [](const auto& result) {
    return !result.inconclusive.empty();
  });
  const bool let_pass = std::any_of(results.begin(), results.end(), [&](const auto& result) {
    return !result.unmet.empty() && !result.fails_at(fail_on);
  });
  if (status == kExitFailed && undecided > 0 && inconclusive == InconclusiveAs::fail &&
      !std::any_of(results.begin(), results.end(),
                   [&](const auto& result) { return result.fails_at(fail_on); })) {
    out << "exit 1: nothing failed, but " << undecided
        << (undecided == 1 ? " scenario" : " scenarios")
        << " could not be judged, and --inconclusive fail counts that as a failure\n";
    return;
  }
  if (status == kExitInconclusive) {
    out << "exit 3: nothing failed, but " << undecided
        << (undecided == 1 ? " scenario" : " scenarios")
        << " could not be judged (inconclusive); --inconclusive pass or fail decides otherwise\n";
    return;
  }
  if (status == kExitMet && undecided > 0)
    out << "exit 0: --inconclusive pass counts what could not be judged as passed\n";
  if (status == kExitMet && let_pass)
    out << "exit 0: only policy failures, and --fail-on harm counts harm alone\n";
}

}  // namespace retryproof::scenarios
