// What the HTTPS tests share: one generated certificate per test program, and a provider
// that serves it with a fault plan in force from the start.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "provider/provider_server.hpp"

namespace retryproof::provider::testing {

// One certificate for the whole program: generating is cheap, but not free.
inline const GeneratedTls& test_tls() {
  static const GeneratedTls generated = generate_tls_identity();
  return generated;
}

inline ProviderConfig with_faults(const std::vector<std::string>& faults) {
  ProviderConfig config;
  config.initial_plan = FaultPlan::from_json(nlohmann::json{{"faults", faults}});
  return config;
}

class OverTls : public ::testing::Test {
 protected:
  void serve(ProviderConfig config = {}) {
    server.emplace(std::move(config), ServerOptions{.port = 0, .tls = test_tls().identity});
  }
  nlohmann::json last_entry() { return server->core().journal_json()["entries"].back(); }
  const std::string& ca() const { return test_tls().ca_certificate_pem; }

  std::optional<ProviderServer> server;
};

}  // namespace retryproof::provider::testing
