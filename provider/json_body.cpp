#include "provider/json_body.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "common/canonical_stream.hpp"
#include "common/json_text.hpp"

namespace retryproof::provider {
namespace {

// The most containers open at once, counting brackets outside strings. Along the part of
// the text the parser reads (up to its first error, if any) this is its own count.
std::size_t deepest_nesting(std::string_view text) {
  std::size_t open = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote perhaps, does not end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++open);
    } else if ((c == '}' || c == ']') && open > 0) {
      --open;
    }
  }
  return deepest;
}

[[noreturn]] void refuse_depth() {
  throw std::invalid_argument("the body nests deeper than " + std::to_string(kMaxJsonDepth) +
                              " levels");
}

void refuse_nul(const std::string& body) {
  // The parser reads a NUL byte as the end of its input, so `{"a":1}\0{"b":2}` would parse
  // as its first half: a body the client did not send as a whole.
  if (const auto nul = body.find('\0'); nul != std::string::npos) {
    throw std::invalid_argument("the body has a NUL byte at offset " + std::to_string(nul) +
                                ", which JSON text cannot contain");
  }
}

[[noreturn]] void refuse_type(nlohmann::json::value_t type) {
  throw std::invalid_argument(std::string("the body must be a JSON object, not ") +
                              nlohmann::json(type).type_name());
}

}  // namespace

nlohmann::json parse_object_body(const std::string& body) {
  if (body.empty()) return nlohmann::json::object();
  refuse_nul(body);
  const auto limit_depth = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) refuse_depth();
    return true;
  };
  nlohmann::json parsed;
  try {
    // The parser's callback sees no event deeper than the containers open, so a body that
    // never opens more than the limit cannot fail it: such a body (every usual one) is
    // parsed without the callback and its bookkeeping (a call and a flag per value).
    parsed = deepest_nesting(body) <= static_cast<std::size_t>(kMaxJsonDepth)
                 ? nlohmann::json::parse(body)
                 : nlohmann::json::parse(body, limit_depth);
  } catch (const nlohmann::json::exception& error) {  // syntax, and numbers beyond a double
    throw std::invalid_argument(json_error_message(error));
  }
  if (!parsed.is_object()) refuse_type(parsed.type());
  return parsed;
}

std::string canonical_object_body(const std::string& body, bool string_leaves) {
  if (body.empty()) return "{}";
  refuse_nul(body);
  CanonicalText canonical;
  try {
    // The writer counts depth as the DOM parser's callback does, so it refuses exactly the
    // bodies parse_object_body refuses, at the same point of the text.
    canonical = canonical_json_text(body, {.string_leaves = string_leaves,
                                           .max_depth = static_cast<std::size_t>(kMaxJsonDepth)});
  } catch (const JsonTooDeep&) {
    refuse_depth();
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(json_error_message(error));
  }
  if (canonical.type != nlohmann::json::value_t::object) refuse_type(canonical.type);
  return std::move(canonical.text);
}

}  // namespace retryproof::provider
