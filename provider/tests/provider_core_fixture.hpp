// What the baseline ProviderCore tests share: a core seeded alike, its log, and the shape
// every error answer must have.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "provider/provider_core.hpp"
#include "provider/tests/core_test_support.hpp"

namespace retryproof::provider::testing {

using nlohmann::json;

inline constexpr std::uint64_t kSeed = 42;

inline std::string job_id_of(const Decision& decision) {
  return body_of(decision).at("id").get<std::string>();
}

inline bool is_job_id(const json& id) {
  return id.is_string() && std::regex_match(id.get<std::string>(), std::regex("^job_[0-9a-f]{8}$"));
}

// Asserts the error shape: {"error": code} plus an optional non-empty "detail".
inline void expect_error(const Decision& decision, int status, const std::string& code) {
  EXPECT_EQ(decision.delivery, Delivery::respond);
  EXPECT_EQ(decision.status, status) << decision.body;
  const json body = body_of(decision);
  EXPECT_EQ(body.at("error"), code) << decision.body;
  for (const auto& [field, value] : body.items()) {
    EXPECT_TRUE(field == "error" || field == "detail") << "unexpected field " << field;
  }
  if (body.contains("detail")) {
    EXPECT_TRUE(body["detail"].is_string() && !body["detail"].get<std::string>().empty())
        << decision.body;
  }
}

class ProviderCoreTest : public ::testing::Test {
 protected:
  std::vector<std::string> log_lines_;
  ProviderCore core_{config_with(kSeed, &log_lines_)};
};

}  // namespace retryproof::provider::testing
