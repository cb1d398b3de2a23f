// The provider core in the same thread, in virtual time: no sockets, no waiting. A drop
// becomes a closed connection, a delay lets virtual time pass (or becomes a timeout when it
// is longer than the client waits), so a whole client run takes microseconds and replays
// exactly. Time is a VirtualTime (virtual_time.hpp): a lone client's timeline, or its seat
// in a fleet, where each client's transport stamps its requests with a port of its own.
//
// It is also where a simulated client dies: with a kill condition armed, every moment the
// provider's state can change (a request handled, a held request committed while the
// client sleeps) is checked, and the client is stopped there by a ClientKilled exception,
// as SIGKILL stops a process — its intent ledger keeps what it had saved.
#pragma once

#include <functional>
#include <memory>

#include "client_under_test/time_and_chance.hpp"
#include "client_under_test/transport.hpp"
#include "provider/provider_core.hpp"
#include "scenarios/simulation/virtual_time.hpp"

namespace retryproof::scenarios {

class SimulatedTransport final : public client::Transport {
 public:
  // A client alone with the provider, on a timeline of its own over `clock` (test harnesses,
  // benchmarks); settle() ends its run.
  SimulatedTransport(provider::ProviderCore& provider, client::VirtualClock& clock);
  // A client on shared time: a world's timeline, or a fleet seat. Its requests arrive on
  // `listener` (HttpRequest::listener: 0 is the main port, a fleet client has its own); a
  // fleet client's connection is its listener's number (connect()).
  SimulatedTransport(provider::ProviderCore& provider, VirtualTime& time, int listener = 0);

  // No sockets here: from now on the requests come on one "connection" named `client_port`
  // (HttpRequest::client_port), the first of them new, as a process's would. A simulated
  // client gets one of its own, so that the driver attributes its requests as it does a
  // process's (scenarios/driver/attribution.hpp).
  void connect(int client_port);

  client::TransportResponse send(const client::TransportRequest& request) override;

  // Lets virtual time pass for a sleeping client: held requests that come due commit.
  void pass_time(Millis duration);

  // On a timeline of its own: commits every request still held by delay-before-commit, at
  // its due time, as the real provider would once its wait ends. Call after a run, before
  // judging it. Shared time is settled by its owner.
  void settle();

  // From now on, throws ClientKilled as soon as `condition()` holds after a change of the
  // provider's state; an empty function disarms it.
  void kill_when(std::function<bool()> condition) { kill_when_ = std::move(condition); }

 private:
  void wait_until(Millis until);
  void wait_out_hold(const provider::Decision& decision, Millis sent);
  void kill_if_due() const;

  provider::ProviderCore& provider_;
  std::unique_ptr<Timeline> own_time_;  // only for a client alone
  VirtualTime& time_;
  int listener_ = 0;
  int client_port_ = 0;     // 0: none yet
  bool connected_ = false;  // a request was sent on client_port_
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
