// The proxy's journal: one provider::JournalEntry per data-plane request, in the format
// GET /_test/journal serves from the provider (so every reader of a provider's journal
// reads the proxy's), with what the upstream did beside it. `status`, `delivery` and
// `delivered` say what reached the client; `jobId` is the job the upstream returned.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "proxy/upstream_answer.hpp"

namespace retryproof::proxy {

// What the upstream did with one request, kept beside its entry (8 bytes, where an entry in
// memory is 48): the provider's JournalEntry has no room for it, and needs none.
struct UpstreamFields {
  // The upstream's status, when it answered; 0 when nothing was forwarded or no answer came
  // back.
  std::uint16_t status = 0;
  // Why no answer came back from a forwarded request.
  UpstreamFailure error = UpstreamFailure::none;
};

// Adds "upstreamStatus" and "upstreamError" (null when empty) to an entry's JSON.
void add_upstream_fields(nlohmann::json& entry, const UpstreamFields& fields);

}  // namespace retryproof::proxy
