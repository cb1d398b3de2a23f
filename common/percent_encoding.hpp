// Percent-encoding of a path segment (RFC 3986), as the client writes lookup paths and
// the provider reads them back.
#pragma once

#include <string>
#include <string_view>

namespace retryproof {

// Everything but unreserved characters is %XX-encoded, so any key survives the trip
// through a path segment.
std::string percent_encode(std::string_view text);
// The inverse; a malformed escape is kept as written.
std::string percent_decode(std::string_view text);

}  // namespace retryproof
