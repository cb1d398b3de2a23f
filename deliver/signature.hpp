// How `retryproof deliver` signs a webhook, when given a secret: HMAC-SHA256 of the exact
// body bytes, in lower-case hex, in the Retryproof-Signature header as "sha256=<hex>" (the
// form GitHub's X-Hub-Signature-256 uses). A receiver recomputes it over the raw body it
// read, before parsing, and compares in constant time.
#pragma once

#include <string>
#include <string_view>

namespace retryproof::deliver {

// The headers every delivery carries.
inline constexpr std::string_view kEventIdHeader = "Retryproof-Event-Id";   // the event's id
inline constexpr std::string_view kDeliveryHeader = "Retryproof-Delivery";  // 1, then 2: the copy
inline constexpr std::string_view kSignatureHeader = "Retryproof-Signature";

// Lower-case hex HMAC-SHA256 of `body` under `secret` (OpenSSL's HMAC).
std::string hmac_sha256_hex(std::string_view secret, std::string_view body);

// "sha256=" + hmac_sha256_hex(secret, body): the Retryproof-Signature header's value.
std::string signature_header(std::string_view secret, std::string_view body);

}  // namespace retryproof::deliver
