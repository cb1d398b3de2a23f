// Conformance profiles: the same provider, speaking as a particular real-world contract.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::provider {

enum class Profile {
  baseline,  // the JavaScript original: a replay returns the stored job
  stripe,    // Stripe API v1: the first response is recorded and replayed, 5xx included
  ietf,      // the IETF Idempotency-Key draft: quoted keys, problem+json errors
};

std::string to_string(Profile profile);

// Throws std::invalid_argument naming the known profiles.
Profile parse_profile(std::string_view name);

}  // namespace retryproof::provider
