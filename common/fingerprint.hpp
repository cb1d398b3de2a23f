// The identity of a payload: equal for the same JSON value whatever its key order or
// white space, different for any change of value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace retryproof {

// Compact JSON with object keys sorted, and integral numbers written as integers
// (120.0 and 1.2e2 as 120), as JavaScript's JSON.stringify writes them.
std::string canonical_json(const nlohmann::json& payload);

// Lower-case hex SHA-256 of the bytes, computed with OpenSSL's EVP interface.
std::string sha256_hex(std::string_view bytes);

// sha256_hex(canonical_json(payload)).
std::string fingerprint(const nlohmann::json& payload);

}  // namespace retryproof
