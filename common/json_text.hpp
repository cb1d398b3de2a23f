// JSON as text: compact output that never throws on bytes a client sent, and parse errors
// said the way a person can act on them.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace retryproof {

// Compact JSON; bytes that are not UTF-8 (a key sent in Latin-1, say) become U+FFFD
// instead of throwing.
std::string compact_json(const nlohmann::json& value);

// Bytes a client sent (a key, a path) as the string `name` of a JSON object: the bytes
// themselves when they are UTF-8, so that such a key reads back byte for byte; otherwise
// their escape_text() form (common/utf8.hpp), with `<name>Escaped: true` beside it, so that
// two keys that are not UTF-8 never read alike, nor like a key that spells the escape.
void put_client_text(nlohmann::json& object, const std::string& name, std::string_view bytes);

// What put_client_text() was given, from `object` (nothing for a missing or null `name`).
// Throws std::invalid_argument for a `<name>Escaped` string that is not escape_text()'s.
std::optional<std::string> client_text(const nlohmann::json& object, const std::string& name);

// nlohmann's message without its "[json.exception.parse_error.101] " tag: where, and what.
std::string json_error_message(const nlohmann::json::exception& error);

}  // namespace retryproof
