// A proxy in front of a real provider, both on free loopback ports, as the HTTP tests
// use them: the client's view through the proxy, and the upstream's own records.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/provider_server.hpp"
#include "proxy/proxy_server.hpp"

namespace retryproof::proxy::testing {

inline UpstreamLimits quick_limits() {
  return {.connect_timeout = Millis(2'000), .response_timeout = Millis(300)};
}

// Control calls and requests through httplib: the proxy's own loopback Host.
inline nlohmann::json get_json(const std::string& base_url, const std::string& path) {
  httplib::Client client(base_url);
  const auto result = client.Get(path);
  if (!result) throw std::runtime_error("GET " + path + ": no answer");
  return nlohmann::json::parse(result->body);
}

inline void install_plan(const std::string& base_url, const nlohmann::json& plan) {
  httplib::Client client(base_url);
  const auto result = client.Post("/_test/faults", plan.dump(), "application/json");
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
}

inline httplib::Result post_job(const std::string& base_url, const std::string& key,
                                const std::string& body = R"({"orderId":"o-1"})") {
  httplib::Client client(base_url);
  client.set_read_timeout(10, 0);
  return client.Post("/jobs", {{"Idempotency-Key", key}}, body, "application/json");
}

}  // namespace retryproof::proxy::testing
