// `retryproof client --session`: the reference client (or a mutant) as a long-lived
// service instance under the session contract (docs/sessions.md). Operations arrive on
// standard input, one JSON line each; each runs on a thread of its own (a bounded pool),
// and its tagged outcome line goes to standard output as soon as it is done. What the
// operations of one instance share (the intent ledger, and later a retry budget) is built
// once, in one place: InstanceState in session_client.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
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

// One line of standard input, read: the tag, and the operation it names.
struct SessionRequest {
  std::string id;
  Operation operation;
};

// A line of input read, or why it cannot be (`problem`), with the id when one could be read
// (then the operation is answered `failed` with that reason).
struct SessionLine {
  std::optional<SessionRequest> request;
  std::string problem;
  std::string id;
};
SessionLine read_session_line(const std::string& line);

// The seed of one operation's jitter: the instance's seed and the operation's tag, mixed,
// so that a session replays whatever order its operations finish in.
std::uint64_t operation_seed(std::uint64_t session_seed, const std::string& id);

// The outcome line tagged with its operation's id.
nlohmann::json tagged_outcome(const std::string& id, nlohmann::json outcome_line);

// Serves `input` until it ends, then finishes the operations in flight. Returns the exit
// status (0; 1 if the shared state cannot be built, before any line is read).
int serve_session(const SessionConfig& config, std::istream& input, std::ostream& output,
                  std::ostream& errors);

}  // namespace retryproof::client
