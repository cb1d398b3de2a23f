// Whether an invocation has reached its kill point, counting only what is its own. Its
// window may hold a killed predecessor's requests, read late on that client's connections
// (the answer gate keeps them unread until this invocation has begun): they are charged to
// the predecessor (scenarios/driver/attribution.hpp), so they must not bring this client to
// its point either. A request counts when it came on a connection no earlier invocation
// opened; a job, when no such request made it. Reads the journal outside the core's lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>

#include "provider/provider_core.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

class KillWatch {
 public:
  // At the invocation's start, before anything of it is journaled: its first seq is the
  // journal's size plus one.
  KillWatch(const provider::ProviderCore& core, KillPoint kill);

  bool reached() const;
  std::uint64_t first_seq() const { return first_seq_; }

 private:
  const provider::ProviderCore& core_;
  KillPoint kill_;
  std::uint64_t first_seq_;
  std::size_t jobs_before_;
  // (listener, client port) of the connections earlier invocations opened.
  std::set<std::pair<int, int>> earlier_connections_;
};

}  // namespace retryproof::scenarios
