// Reading a JSON document with errors that say exactly where to look: every value carries
// its path in the file ("$.client.timeout"), and every mistake names it, says what was
// expected, and suggests the field a typo meant.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/duration.hpp"
#include "common/millis.hpp"
#include "common/suggest.hpp"

namespace retryproof {

// A document (a scenario, an API shape, or a part of one) that breaks its format: where
// and what.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A JSON value and where it stands in the file ("$.client.timeout"), for errors that say
// exactly where to look.
struct JsonNode {
  const nlohmann::json& value;
  std::string path;

  [[noreturn]] void fail(const std::string& what) const { throw FormatError(path + ": " + what); }

  JsonNode field(const std::string& name) const { return {value.at(name), path + "." + name}; }
  JsonNode item(std::size_t i) const { return {value.at(i), path + "[" + std::to_string(i) + "]"}; }
  bool has(const std::string& name) const { return value.contains(name); }

  const nlohmann::json& object(std::initializer_list<std::string_view> known) const {
    if (!value.is_object()) fail("expected an object");
    for (const auto& [name, ignored] : value.items()) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string names;
        std::vector<std::string> candidates;
        for (const auto known_name : known) {
          names += (names.empty() ? "" : ", ") + std::string(known_name);
          candidates.emplace_back(known_name);
        }
        fail("unknown field \"" + name + "\"" + did_you_mean(name, candidates) +
             "; expected one of: " + names);
      }
    }
    return value;
  }
  // An object whose field names are free (a map of names to values).
  const nlohmann::json& any_object() const {
    if (!value.is_object()) fail("expected an object");
    return value;
  }
  std::string string() const {
    if (!value.is_string()) fail("expected a string");
    return value.get<std::string>();
  }
  std::string non_empty_string() const {
    std::string text = string();
    if (text.empty()) fail("expected a non-empty string");
    return text;
  }
  int integer(int low, int high) const {
    if (!value.is_number_integer() || value.get<std::int64_t>() < low ||
        value.get<std::int64_t>() > high) {
      fail("expected a whole number from " + std::to_string(low) + " to " + std::to_string(high));
    }
    return value.get<int>();
  }
  Millis duration() const {
    try {
      return parse_duration(string());
    } catch (const std::invalid_argument& error) {
      fail(error.what());
    }
  }
  const nlohmann::json& array() const {
    if (!value.is_array()) fail("expected an array");
    return value;
  }
  nlohmann::json payload() const {
    if (!value.is_object()) fail("expected a JSON object (the job's payload)");
    return value;
  }
};

}  // namespace retryproof
