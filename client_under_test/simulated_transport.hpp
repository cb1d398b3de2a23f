// The provider core in the same thread, in virtual time: no sockets, no threads, no
// waiting. A drop becomes a closed connection, a delay moves the virtual clock (or
// becomes a timeout when it is longer than the client waits), so a whole client run
// takes microseconds and replays exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "client_under_test/transport.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::client {

class SimulatedTransport final : public Transport {
 public:
  SimulatedTransport(provider::ProviderCore& provider, VirtualClock& clock)
      : provider_(provider), clock_(clock) {}

  TransportResponse send(const TransportRequest& request) override;

  // Commits every request still held by delay-before-commit, at its due time, as the
  // real provider would once its wait ends. Call after a run, before judging it.
  void settle();

 private:
  struct HeldCommit {
    Millis due;
    std::uint64_t pending_commit;
  };

  void complete_due(Millis until);

  provider::ProviderCore& provider_;
  VirtualClock& clock_;
  std::vector<HeldCommit> held_;  // requests whose client stopped waiting
};

}  // namespace retryproof::client
