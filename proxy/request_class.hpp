// What the proxy must know of a data-plane request before it forwards it: a create (with
// its key, payload and fingerprint), a lookup (of which key), or anything else; and what
// it must read of the upstream's answer: the id of the object. The API shape (`--api`,
// the seeds' `jobs` by default) says where each lives, as it does for the provider.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "provider/api_shape.hpp"
#include "provider/http_types.hpp"
#include "provider/journal.hpp"

namespace retryproof::proxy {

struct RequestClass {
  provider::RequestKind kind = provider::RequestKind::other;
  // A create's idempotency key (empty when it has none); a lookup's key.
  std::string key;
  // A create's body, when the shape can decode it: what targeted rules match.
  std::optional<nlohmann::json> payload;
  std::optional<std::string> fingerprint;  // of the payload, in the shape's canonical form
};

RequestClass classify(const provider::ApiShape& shape, const provider::HttpRequest& request);

// The id of the object an upstream's body describes, read through the shape (its envelope,
// its id field, a numeric id as its digits), when the body is a JSON object that has one.
std::optional<std::string> object_id(const provider::ApiShape& shape, const std::string& body);

}  // namespace retryproof::proxy
