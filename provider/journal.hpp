// Every data-plane request the provider saw, in arrival order: the evidence verdicts
// are built from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "provider/http_types.hpp"

namespace retryproof::provider {

enum class Outcome {
  new_operation,  // a new key: a fault was taken and applied
  replay,         // a known key with the same payload
  rejected,       // a known key with a different payload (422)
  conflict,       // the key's first request is still in flight (409)
  missing_key,    // POST /jobs without an Idempotency-Key
  invalid,        // malformed key or body, wrong method, unknown path
  lookup_hit,     // reconciliation found the job
  lookup_miss,    // reconciliation found nothing
  lookup_failed,  // reconciliation was made to fail
};

std::string to_string(Outcome outcome);

struct JournalEntry {
  std::uint64_t seq = 0;
  Millis at{0};
  std::string method;
  std::string path;
  std::optional<std::string> key;
  std::optional<std::string> fingerprint;
  Outcome outcome = Outcome::invalid;
  std::optional<std::string> fault;
  std::optional<int> status;  // empty when no status line was sent
  bool delivered = false;     // whether a complete response reached the socket
  std::optional<std::string> job_id;
};

nlohmann::json to_json(const JournalEntry& entry);

}  // namespace retryproof::provider
