// The proxy's journal: one provider::JournalEntry per data-plane request, in the format
// GET /_test/journal serves from the provider (so every reader of a provider's journal
// reads the proxy's), with what the upstream did beside it. `status`, `delivery` and
// `delivered` say what reached the client; `jobId` is the job the upstream returned.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "provider/journal.hpp"
#include "proxy/upstream_answer.hpp"

namespace retryproof::proxy {

struct ProxyEntry : provider::JournalEntry {
  // The upstream's status, when it answered; empty when nothing was forwarded or no
  // answer came back.
  std::optional<int> upstream_status;
  // Why no answer came back from a forwarded request.
  std::optional<UpstreamFailure> upstream_error;
};

// The provider's fields, then "upstreamStatus" and "upstreamError" (null when empty).
void to_json(nlohmann::json& json, const ProxyEntry& entry);

}  // namespace retryproof::proxy
