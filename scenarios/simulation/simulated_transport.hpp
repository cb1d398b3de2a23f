// The provider core in the same thread, in virtual time: no sockets, no threads, no
// waiting. A drop becomes a closed connection, a delay moves the virtual clock (or becomes
// a timeout when it is longer than the client waits), so a whole client run takes
// microseconds and replays exactly.
//
// It is also where a simulated client dies: with a kill condition armed, every moment the
// provider's state can change (a request handled, a held request committed while the
// client sleeps) is checked, and the client is stopped there by a ClientKilled exception,
// as SIGKILL stops a process — its intent ledger keeps what it had saved.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "client_under_test/time_and_chance.hpp"
#include "client_under_test/transport.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::scenarios {

// Thrown out of a simulated client when its kill condition is met.
struct ClientKilled {};

class SimulatedTransport final : public client::Transport {
 public:
  SimulatedTransport(provider::ProviderCore& provider, client::VirtualClock& clock)
      : provider_(provider), clock_(clock) {}

  client::TransportResponse send(const client::TransportRequest& request) override;

  // Lets virtual time pass for a sleeping client: held requests that come due commit.
  void pass_time(Millis duration);

  // Commits every request still held by delay-before-commit, at its due time, as the
  // real provider would once its wait ends. Call after a run, before judging it.
  void settle();

  // From now on, throws ClientKilled as soon as `condition()` holds after a change of the
  // provider's state; an empty function disarms it.
  void kill_when(std::function<bool()> condition) { kill_when_ = std::move(condition); }

 private:
  struct HeldCommit {
    Millis due;
    std::uint64_t pending_commit;
  };

  void complete_due(Millis until);
  void kill_if_due() const;

  provider::ProviderCore& provider_;
  client::VirtualClock& clock_;
  std::vector<HeldCommit> held_;  // requests whose client stopped waiting
  std::function<bool()> kill_when_;
};

// The client's Sleeper in simulation: sleeping lets the transport's time pass.
class SimulatedSleeper final : public client::Sleeper {
 public:
  explicit SimulatedSleeper(SimulatedTransport& transport) : transport_(transport) {}
  void sleep(Millis duration) override { transport_.pass_time(duration); }

 private:
  SimulatedTransport& transport_;
};

}  // namespace retryproof::scenarios
