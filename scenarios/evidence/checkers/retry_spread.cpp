// retry-spread (policy): a fleet's retries do not arrive in waves. The n-th retries of the
// fleet's clients are compared (fleet.hpp defines the measure and why): when their waits
// hardly vary, clients that failed together — as every client of an outage does — retry
// together, and each wave lands on a service that is already failing.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

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

// The Retry-After, in seconds, that the provider gave most of the wave's failures alike and
// that the wave waited at least, if it did: a wave the provider's own uniform instruction
// made. Most is four in five, as the spread drops a tenth at each end.
std::optional<int> ordered_by_retry_after(const std::vector<const Retry*>& wave, double median) {
  std::map<int, std::size_t> told;
  for (const Retry* retry : wave) {
    if (retry->failure->retry_after_seconds) ++told[*retry->failure->retry_after_seconds];
  }
  for (const auto& [seconds, count] : told) {
    if (count * 5 >= wave.size() * 4 && median >= seconds * 1000.0) return seconds;
  }
  return std::nullopt;
}

// A wave's waits, measured.
Spread spread_of_wave(const std::vector<const Retry*>& wave) {
  std::vector<double> waits;
  for (const Retry* retry : wave)
    waits.push_back(static_cast<double>(retry->wait.count()));
  return spread_of(std::move(waits));
}

// The narrowest spread that is not a wave (fleet.hpp).
double least_spread(const Spread& spread, Millis min_backoff) {
  return std::max({kLeastSpreadShare * spread.median, static_cast<double>(kLeastSpread.count()),
                   kBackoffShare * static_cast<double>(min_backoff.count())});
}

// "; retries number 2 waited the Retry-After: 1 the provider gave alike (...)"
std::string spread_after_retry_after_text(int number, int seconds, const Spread& spread) {
  return "; retries number " + std::to_string(number) +
         " waited the Retry-After: " + std::to_string(seconds) +
         " the provider gave alike (median " + ms(spread.median) + "), spread over " +
         ms(spread.middle) +
         " by jitter on top of it or by the machine's noise, which the waits cannot tell apart";
}

// Every wave the provider ordered is named: the first says what it did, the others add to it.
std::string synchronised_text(bool first, int number, int seconds, const Spread& spread) {
  return (first ? "; the provider synchronised the fleet: its 429s said Retry-After: "
                : "; so did Retry-After: ") +
         std::to_string(seconds) + (first ? " alike and retries number " : " for retries number ") +
         std::to_string(number) + (first ? " waited just that (median " : " (median ") +
         ms(spread.median) + ", the middle 80% within " + ms(spread.middle) + ")";
}

}  // namespace

Verdict retry_spread(const Evidence& evidence) {
  std::map<int, std::vector<const Retry*>> waves;  // by retry number
  const std::vector<Retry> found = retries(evidence);
  for (const Retry& retry : found)
    waves[retry.number].push_back(&retry);
  Violations violations;
  int judged = 0;
  int ordered = 0;                       // waves a uniform Retry-After made
  std::string synchronised_by_provider;  // what it ordered, in words
  int told = 0;                          // spread waves that waited a uniform Retry-After
  std::string spread_after_retry_after;  // those, in words
  for (const auto& [number, wave] : waves) {
    if (wave.size() < kSmallestWave) continue;
    ++judged;
    const Spread spread = spread_of_wave(wave);
    const double least = least_spread(spread, evidence.policy().min_backoff);
    const auto seconds = ordered_by_retry_after(wave, spread.median);
    if (spread.middle >= least) {
      // Spread, but after a Retry-After the provider gave alike: a client that waits just
      // that is spread by the machine's noise alone (tens of ms on a busy one), which the
      // waits cannot tell from jitter on top of it. Say so rather than credit jitter.
      if (seconds) {
        spread_after_retry_after += spread_after_retry_after_text(number, *seconds, spread);
        ++told;
      }
      continue;
    }
    if (seconds && !evidence.policy().jitter_after_retry_after) {
      synchronised_by_provider += synchronised_text(ordered == 0, number, *seconds, spread);
      ++ordered;
      continue;
    }
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
  const int own = judged - ordered - told;
  return std::move(violations)
      .verdict(
          (own > 0
               ? "each wave of retries was spread by jitter (" + std::to_string(own) + " judged)"
               : std::string("no wave of retries was the clients' own timing")) +
          synchronised_by_provider +
          (ordered == 0 ? ""
                        : ", as RFC 9110 asks. Jitter on top of Retry-After avoids such a "
                          "wave; a client that declares jitter-after-retry-after is held to it") +
          spread_after_retry_after);
}

}  // namespace retryproof::scenarios::checkers
