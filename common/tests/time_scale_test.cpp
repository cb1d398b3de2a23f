#include "common/time_scale.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace retryproof {
namespace {

using namespace std::chrono_literals;

TEST(TimeScale, RealTimeConvertsNothing) {
  const TimeScale real;
  EXPECT_TRUE(real.is_real_time());
  EXPECT_EQ(real.to_real(Millis(250)), 250ms);
  EXPECT_EQ(real.to_scaled(250ms), Millis(250));
}

TEST(TimeScale, ScenarioTimeRunsNTimesFaster) {
  const TimeScale ten(10);
  EXPECT_FALSE(ten.is_real_time());
  EXPECT_EQ(ten.to_real(Millis(2000)), 200ms);  // a 2 s hold lasts 0.2 s
  EXPECT_EQ(ten.to_real(Millis(5)), 500us);     // below a millisecond, not rounded away
  EXPECT_EQ(ten.to_scaled(200ms), Millis(2000));
  EXPECT_EQ(ten.to_scaled(150us), Millis(1));
}

TEST(TimeScale, RefusesFactorsOutsideItsRange) {
  EXPECT_THROW(TimeScale(0), std::invalid_argument);
  EXPECT_THROW(TimeScale(-3), std::invalid_argument);
  EXPECT_THROW(TimeScale(TimeScale::kMaxFactor + 1), std::invalid_argument);
  EXPECT_EQ(TimeScale(TimeScale::kMaxFactor).factor(), TimeScale::kMaxFactor);
}

}  // namespace
}  // namespace retryproof
