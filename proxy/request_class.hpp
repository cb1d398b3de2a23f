// What the proxy must know of a data-plane request before it forwards it: a create (with
// its key and payload), a lookup (of which key), or anything else; and what it must read
// of the upstream's answer: the id of the object. Both follow the seeds' `jobs` API
// (POST /jobs with an Idempotency-Key header, GET /jobs/by-idempotency-key/{key}); they
// are the two functions an API shape (`--api`) replaces.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "provider/http_types.hpp"
#include "provider/journal.hpp"

namespace retryproof::proxy {

struct RequestClass {
  provider::RequestKind kind = provider::RequestKind::other;
  // A create's Idempotency-Key (empty when it has none); a lookup's key, from its path.
  std::string key;
  // A create's body, when it is a JSON object: what targeted rules match and the
  // fingerprint is taken of.
  std::optional<nlohmann::json> payload;
};

RequestClass classify(const provider::HttpRequest& request);

// The "id" of the object an upstream's body describes, when it is a JSON object with a
// string "id".
std::optional<std::string> object_id(const std::string& body);

}  // namespace retryproof::proxy
