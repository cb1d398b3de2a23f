// A proxy in front of a real provider, both on free loopback ports, as the HTTP tests
// use them: the client's view through the proxy, and the upstream's own records.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"
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

// An answer read off a raw socket: its status, its head (status line and headers) and its
// body as JSON (null when empty, discarded when it is not JSON).
struct RawAnswer {
  int status = 0;
  std::string head;
  nlohmann::json body;
};

inline RawAnswer raw_answer_of(const std::string& received) {
  const std::string body = provider::testing::body_of(received);
  return {provider::testing::status_of(received), received.substr(0, received.find("\r\n\r\n")),
          nlohmann::json::parse(body.empty() ? "null" : body, nullptr, false)};
}

// The proxy's latest journal entry.
inline nlohmann::json last_journal_entry(ProxyServer& proxy) {
  return proxy.core().journal_json()["entries"].back();
}

}  // namespace retryproof::proxy::testing
