// What the client core may not touch directly: the clock, sleeping and randomness.
// Injected, so tests and the simulation run in virtual time from a seed.
#pragma once

#include <chrono>
#include <cstdint>

#include "common/millis.hpp"
#include "common/splitmix64.hpp"
#include "common/time_scale.hpp"

namespace retryproof::client {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Millis now() = 0;  // since an arbitrary epoch; only differences matter
};

class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void sleep(Millis duration) = 0;
};

class Random {
 public:
  virtual ~Random() = default;
  virtual std::uint64_t next() = 0;  // uniform over all 64-bit values
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

// Virtual time: sleeping moves the clock, nothing waits.
class VirtualClock final : public Clock, public Sleeper {
 public:
  explicit VirtualClock(Millis start = Millis(0)) : now_(start) {}
  Millis now() override { return now_; }
  void sleep(Millis duration) override { now_ += duration; }
  void advance(Millis duration) { now_ += duration; }

 private:
  Millis now_;
};

// The real thing, for the command and for HTTP runs; under --time-scale N it counts N
// times faster than the real clock, and a sleep lasts a Nth as long.
class SystemClock final : public Clock, public Sleeper {
 public:
  explicit SystemClock(TimeScale scale = {}) : scale_(scale) {}
  Millis now() override;
  void sleep(Millis duration) override;

 private:
  TimeScale scale_;
};

// Seeded: the same seed gives the same choices on every machine.
class SeededRandom final : public Random {
 public:
  explicit SeededRandom(std::uint64_t seed) : generator_(seed) {}
  std::uint64_t next() override { return generator_.next(); }

 private:
  SplitMix64 generator_;
};

}  // namespace retryproof::client
