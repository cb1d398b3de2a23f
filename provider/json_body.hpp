// Request bodies that must be JSON objects, parsed safely.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace retryproof::provider {

// Deeper nesting is refused: serialising it again (for the fingerprint) recurses once per
// level, and a 1 MiB body of brackets would otherwise overflow the stack.
inline constexpr int kMaxJsonDepth = 128;

// Parses a body that must be a JSON object; an empty body counts as {}. Throws
// std::invalid_argument saying what is wrong, with line and column for syntax errors.
nlohmann::json parse_object_body(const std::string& body);

// canonical_json(parse_object_body(body)), or with string leaves, written while the body is
// parsed (common/canonical_stream.hpp): what a fingerprint needs, without a DOM. Refuses
// what parse_object_body refuses, with the same words.
std::string canonical_object_body(const std::string& body, bool string_leaves = false);

}  // namespace retryproof::provider
