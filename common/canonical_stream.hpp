// canonical_json() of a JSON text, written while the text is parsed: no DOM is built. The
// provider fingerprints every create's body, and a replay needs nothing else from it, so
// this spares a replay the DOM (a std::map per object) and its walk. Byte-identical to
// canonical_json(nlohmann::json::parse(text)) (property_tests/fingerprint_properties_test.cpp),
// and it fails exactly where and how that parse fails: the same parser reads the text.
#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace retryproof {

// A value nested deeper than CanonicalOptions::max_depth: where the DOM parser's depth
// callback (provider/json_body.cpp) would have stopped.
struct JsonTooDeep : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CanonicalOptions {
  // Scalars as with_string_leaves() (common/form_body.hpp) writes them: a shape that accepts
  // forms fingerprints JSON bodies that way too.
  bool string_leaves = false;
  // The deepest a parse event may be, counted as nlohmann's parser callback counts it (the
  // containers open around it); deeper throws JsonTooDeep.
  std::size_t max_depth = std::numeric_limits<std::size_t>::max();
};

struct CanonicalText {
  std::string text;  // canonical_json() of the value (or of with_string_leaves() of it)
  nlohmann::json::value_t type = nlohmann::json::value_t::null;  // of the outermost value
};

// Throws nlohmann::json::exception for text that nlohmann::json::parse() refuses (the same
// exception, message and position), and JsonTooDeep.
CanonicalText canonical_json_text(std::string_view text, const CanonicalOptions& options = {});

}  // namespace retryproof
