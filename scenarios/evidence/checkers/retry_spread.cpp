// retry-spread (policy): a fleet's retries do not arrive in waves. The n-th retries of the
// fleet's clients are compared (fleet.hpp defines the measure and why): when their waits
// hardly vary, clients that failed together — as every client of an outage does — retry
// together, and each wave lands on a service that is already failing.
#include <algorithm>
#include <cmath>
#include <map>

#include "scenarios/evidence/checkers/violations.hpp"
#include "scenarios/evidence/fleet.hpp"

namespace retryproof::scenarios::checkers {
namespace {

struct Spread {
  double median = 0;
  double middle = 0;  // the range of the middle 80% of the waits
};

Spread spread_of(std::vector<double> waits) {
  std::sort(waits.begin(), waits.end());
  const std::size_t n = waits.size();
  const std::size_t trimmed = std::max<std::size_t>(1, n / 10);
  return {.median = n % 2 ? waits[n / 2] : (waits[n / 2 - 1] + waits[n / 2]) / 2,
          .middle = waits[n - 1 - trimmed] - waits[trimmed]};
}

std::string ms(double value) {
  return std::to_string(static_cast<long long>(std::llround(value))) + " ms";
}

}  // namespace

Verdict retry_spread(const Evidence& evidence) {
  std::map<int, std::vector<const Retry*>> waves;  // by retry number
  const std::vector<Retry> found = retries(evidence);
  for (const Retry& retry : found)
    waves[retry.number].push_back(&retry);
  Violations violations;
  int judged = 0;
  for (const auto& [number, wave] : waves) {
    if (wave.size() < kSmallestWave) continue;
    ++judged;
    std::vector<double> waits;
    for (const Retry* retry : wave)
      waits.push_back(static_cast<double>(retry->wait.count()));
    const Spread spread = spread_of(waits);
    const double least =
        std::max({kLeastSpreadShare * spread.median, static_cast<double>(kLeastSpread.count()),
                  kBackoffShare * static_cast<double>(evidence.policy().min_backoff.count())});
    if (spread.middle >= least) continue;
    std::vector<std::uint64_t> seqs;
    for (const Retry* retry : wave)
      seqs.push_back(retry->retry->seq);
    violations.add("the fleet's retries arrive in waves: its " + std::to_string(wave.size()) +
                       " retries number " + std::to_string(number) + " waited " +
                       ms(spread.median) + " (median), the middle 80% of them within " +
                       ms(spread.middle) + " of each other (under " + ms(least) +
                       "): without jitter, clients that fail together retry together",
                   seqs);
  }
  if (judged == 0) {
    return not_applicable("no " + std::to_string(kSmallestWave) +
                          " clients retried the same number of times: no wave to judge");
  }
  return std::move(violations)
      .verdict("each wave of retries was spread by jitter (" + std::to_string(judged) + " judged)");
}

}  // namespace retryproof::scenarios::checkers
