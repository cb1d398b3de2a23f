// JSON as text: compact output that never throws on bytes a client sent, and parse errors
// said the way a person can act on them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace retryproof {

// Compact JSON; bytes that are not UTF-8 (a key sent in Latin-1, say) become U+FFFD
// instead of throwing.
std::string compact_json(const nlohmann::json& value);

// nlohmann's message without its "[json.exception.parse_error.101] " tag: where, and what.
std::string json_error_message(const nlohmann::json::exception& error);

}  // namespace retryproof
