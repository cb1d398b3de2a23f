// An instance's circuit breaker on its own, in the caller's time: it opens after its failures
// in a row, lets one probe through after open_for, and closes on the probe's success or opens
// again on its failure; and the two bugs the breaker mutants have.
#include "client_under_test/circuit_breaker.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace retryproof::client {
namespace {

constexpr BreakerSettings kThreeFor1s{.failures = 3, .open_for = Millis(1000)};

// Opened at time 0 by its failures in a row.
void open_at_0(CircuitBreaker& breaker) {
  for (int i = 0; i < kThreeFor1s.failures; ++i)
    breaker.record(Answered::failed, Millis(0));
}

TEST(CircuitBreaker, OpensAfterItsFailuresInARowAndAServedAnswerResetsTheCount) {
  CircuitBreaker breaker(kThreeFor1s);
  breaker.record(Answered::failed, Millis(0));
  breaker.record(Answered::failed, Millis(0));
  breaker.record(Answered::served, Millis(0));  // a 404 or a 422 is the service answering
  breaker.record(Answered::failed, Millis(0));
  breaker.record(Answered::failed, Millis(0));
  EXPECT_FALSE(breaker.open());
  EXPECT_EQ(breaker.admit(Millis(0)), Admission::send);
  breaker.record(Answered::failed, Millis(10));
  EXPECT_TRUE(breaker.open());
  EXPECT_EQ(breaker.opened(), 1);
  EXPECT_EQ(breaker.admit(Millis(10)), Admission::refuse);
}

TEST(CircuitBreaker, LetsOneProbeThroughAfterOpenForAndItsSuccessClosesIt) {
  CircuitBreaker breaker(kThreeFor1s);
  open_at_0(breaker);
  EXPECT_EQ(breaker.admit(Millis(999)), Admission::refuse);
  EXPECT_EQ(breaker.admit(Millis(1000)), Admission::probe);
  EXPECT_EQ(breaker.admit(Millis(1000)), Admission::refuse);  // one probe out at a time
  breaker.record(Answered::served, Millis(1100));
  EXPECT_FALSE(breaker.open());
  EXPECT_EQ(breaker.admit(Millis(1100)), Admission::send);
  EXPECT_EQ(breaker.opened(), 1);
}

TEST(CircuitBreaker, AProbeReleasedUnsentIsTheNextOperationsToSend) {
  CircuitBreaker breaker(kThreeFor1s);
  open_at_0(breaker);
  ASSERT_EQ(breaker.admit(Millis(1000)), Admission::probe);
  breaker.release_probe();  // its budget withheld it
  EXPECT_TRUE(breaker.open());
  EXPECT_EQ(breaker.admit(Millis(1001)), Admission::probe);  // due at once, not in another 1 s
  EXPECT_EQ(breaker.opened(), 1);
}

TEST(CircuitBreaker, AFailedProbeOpensItForAnotherOpenFor) {
  CircuitBreaker breaker(kThreeFor1s);
  open_at_0(breaker);
  ASSERT_EQ(breaker.admit(Millis(1000)), Admission::probe);
  breaker.record(Answered::failed, Millis(1500));
  EXPECT_EQ(breaker.opened(), 2);
  EXPECT_EQ(breaker.admit(Millis(2499)), Admission::refuse);
  EXPECT_EQ(breaker.admit(Millis(2500)), Admission::probe);
}

TEST(CircuitBreaker, IgnoresAnswersToRequestsSentBeforeItOpened) {
  CircuitBreaker breaker(kThreeFor1s);
  open_at_0(breaker);
  breaker.record(Answered::served, Millis(200));  // a straggler: the circuit stays open
  EXPECT_EQ(breaker.admit(Millis(200)), Admission::refuse);
  breaker.record(Answered::failed, Millis(900));  // nor does a failed one restart open_for
  EXPECT_EQ(breaker.admit(Millis(1000)), Admission::probe);
}

TEST(CircuitBreaker, TheNeverProbesBugKeepsItOpenForever) {
  CircuitBreaker breaker(kThreeFor1s, BreakerFlaw::never_probes);
  open_at_0(breaker);
  EXPECT_EQ(breaker.admit(Millis(1000)), Admission::refuse);
  EXPECT_EQ(breaker.admit(Millis(3'600'000)), Admission::refuse);
}

TEST(CircuitBreaker, TheNeverClosesBugOpensItAgainOnAProbesSuccess) {
  CircuitBreaker breaker(kThreeFor1s, BreakerFlaw::never_closes);
  open_at_0(breaker);
  ASSERT_EQ(breaker.admit(Millis(1000)), Admission::probe);
  breaker.record(Answered::served, Millis(1100));
  EXPECT_TRUE(breaker.open());
  EXPECT_EQ(breaker.admit(Millis(1100)), Admission::refuse);
  EXPECT_EQ(breaker.admit(Millis(2100)), Admission::probe);  // one operation each open_for
}

TEST(CircuitBreaker, SettingsReadAndWriteAsFailuresSlashOpenFor) {
  EXPECT_EQ(parse_breaker("5/2s"), kDefaultBreaker);
  EXPECT_EQ(kDefaultBreaker.describe(), "5/2s");
  EXPECT_EQ(parse_breaker("10/500ms"), (BreakerSettings{.failures = 10, .open_for = Millis(500)}));
  for (const std::string bad : {"5", "0/2s", "1001/2s", "five/2s", "5/", "5/2 parsecs", "5/0ms"}) {
    SCOPED_TRACE(bad);
    try {
      parse_breaker(bad);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()),
                "breaker=" + bad +
                    ": failures in a row that open it (1 to 1000), then how long it stays open "
                    "before a probe, such as 5/2s");
    }
  }
}

}  // namespace
}  // namespace retryproof::client
