// What the scenario loader's tests share: a minimal valid document, a way to vary one
// field of it, and a fixture that writes a file, loads it and checks the error it gets.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "common/temp_dir.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

inline const std::string kMinimal = R"({
  "name": "minimal",
  "operations": [{"id": "fulfillment:order-42", "payload": {"orderId": "order-42", "amount": 120}}]
})";

// A minimal valid document with one field replaced or added.
inline std::string minimal_with(const std::string& field, const std::string& value) {
  nlohmann::json document = nlohmann::json::parse(kMinimal);
  document[field] = nlohmann::json::parse(value);
  return document.dump(2);
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Loads the file, expects a ScenarioError, and returns its message.
inline std::string load_error(const std::filesystem::path& file) {
  try {
    load_scenario(file);
  } catch (const ScenarioError& error) {
    return error.what();
  }
  ADD_FAILURE() << file << " loaded although it is invalid";
  return {};
}

class ScenarioLoader : public ::testing::Test {
 protected:
  // Writes `text` to bad.json, loads it, and checks that the error names the file and
  // every expected fragment (the JSON path and what was expected).
  void expect_error(const std::string& text, std::initializer_list<std::string> parts) {
    const auto file = dir_.write("bad.json", text);
    const std::string message = load_error(file);
    EXPECT_TRUE(message.starts_with(file.string() + ": ")) << message;
    for (const auto& part : parts)
      EXPECT_TRUE(contains(message, part)) << "missing: " << part << "\nin: " << message;
  }

  TempDir dir_;
};

}  // namespace retryproof::scenarios
