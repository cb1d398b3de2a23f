// Virtual time as a simulated client lives it. A world has one owner of time, its Timeline:
// the clock, and the commits that held requests (delay-before-commit) owe at their due
// times. A lone client waits on the timeline itself; a fleet's clients each wait through a
// seat of the FleetScheduler, which lets the others run meanwhile. Either way a held request
// commits at its due time, in due order across every client, before anyone who wakes later.
#pragma once

#include <cstdint>
#include <map>

#include "client_under_test/time_and_chance.hpp"
#include "common/millis.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::scenarios {

// Thrown out of a simulated client to stop it where a process would be stopped by SIGKILL:
// its kill point, or its time limit in a fleet.
struct ClientKilled {};

// What a simulated client's transport and sleeper see of time.
class VirtualTime : public client::Clock {
 public:
  // Lets time pass, for the calling client, until `until` (no time when that is not later
  // than now). Held requests due by then commit first, in due order; in a fleet other
  // clients run meanwhile — those of this very moment too, when no time passes — and a
  // client that reaches its time limit is stopped by a ClientKilled thrown from here.
  virtual void pass_until(Millis until) = 0;
  // A held request whose client stopped waiting for it: it commits at `due` all the same,
  // as the real provider's timer commits it.
  virtual void hold(Millis due, std::uint64_t pending_commit) = 0;
};

// The world's time: a virtual clock and the commits owed, completed as time passes.
class Timeline final : public VirtualTime {
 public:
  Timeline(provider::ProviderCore& provider, client::VirtualClock& clock)
      : provider_(provider), clock_(clock) {}

  Millis now() override { return clock_.now(); }
  void pass_until(Millis until) override;
  void hold(Millis due, std::uint64_t pending_commit) override {
    held_.emplace(due, pending_commit);
  }

  // Commits every request still held, each at its due time, the clock ending at the last:
  // the end of a run, before the provider is judged.
  void settle();

 private:
  provider::ProviderCore& provider_;
  client::VirtualClock& clock_;
  // By due time; a multimap keeps equal times in the order they were held, so two commits
  // due at once keep their arrival order, as the real provider's timers would.
  std::multimap<Millis, std::uint64_t> held_;
};

}  // namespace retryproof::scenarios
