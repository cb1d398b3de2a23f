// `retryproof client --session`: the reference client (or a mutant) as a long-lived
// service instance under the session contract (docs/sessions.md). Operations arrive on
// standard input, one JSON line each; each runs on a thread of its own (a bounded pool),
// and its tagged outcome line goes to standard output as soon as it is done: the C++
// helper's serve() (embed/cpp/session.hpp) does that part, as for any C++ client. What the
// operations of one instance share (the intent ledger, and later a retry budget) is built
// once, in one place: InstanceState in session_client.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "client_under_test/mutant.hpp"
#include "client_under_test/retrying_client.hpp"
#include "common/time_scale.hpp"

namespace retryproof::client {

struct SessionConfig {
  std::string base_url;
  std::string state_dir;  // empty: intents in memory, forgotten with the process
  std::string ca_file;
  ClientSettings settings;
  Mutant mutant = Mutant::none;
  std::uint64_t seed = 0;  // each operation's jitter: operation_seed(seed, its id)
  TimeScale scale;
  bool verbose = false;
  std::size_t max_in_flight = 64;  // operations running at once; more wait their turn
};

// The seed of one operation's jitter: the instance's seed and the operation's tag, mixed,
// so that a session replays whatever order its operations finish in.
std::uint64_t operation_seed(std::uint64_t session_seed, const std::string& id);

// Serves `input` until it ends, then finishes the operations in flight. Returns the exit
// status (0; 1 if the shared state cannot be built, before any line is read).
int serve_session(const SessionConfig& config, std::istream& input, std::ostream& output,
                  std::ostream& errors);

}  // namespace retryproof::client
