// The reference client's transport over HTTPS (cpp-httplib with OpenSSL) against a provider
// serving TLS: each way an exchange ends is told apart as over plain HTTP, a reset does not
// kill the process (OpenSSL writes with write(): SIGPIPE), and a certificate that does not
// verify is "not sent": the provider saw nothing.
#include <gtest/gtest.h>

#include "client_under_test/http_transport.hpp"
#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"

namespace retryproof::client {
namespace {

const provider::GeneratedTls& test_tls() {
  static const provider::GeneratedTls generated = provider::generate_tls_identity();
  return generated;
}

TransportRequest post(const std::string& key) {
  return {"POST", "/jobs", {{"Idempotency-Key", key}, {"Content-Type", "application/json"}}, "{}"};
}

TEST(HttpsTransport, TellsEachEndingApartAsOverPlainHttp) {
  const std::vector<std::pair<std::string, TransportFailure>> cases = {
      {"commit-then-drop", TransportFailure::closed},
      {"commit-then-reset", TransportFailure::closed},
      {"commit-then-truncate", TransportFailure::truncated},
      {"fail-before-commit", TransportFailure::none},
  };
  const TempDir dir("retryproof-https-transport");
  const auto ca_file = dir.write("ca.pem", test_tls().ca_certificate_pem);
  for (const auto& [fault, failure] : cases) {
    provider::ProviderServer server(
        {.initial_plan = provider::FaultPlan::from_json({{"faults", {fault}}})},
        {.port = 0, .tls = test_tls().identity});
    ASSERT_TRUE(server.base_url().starts_with("https://"));
    HttpTransport transport(server.base_url(), {}, ca_file.string());
    const TransportResponse response = transport.send(post("k"));
    EXPECT_EQ(to_string(response.failure), to_string(failure)) << fault;
    EXPECT_EQ(server.core().journal_size(), 1u) << fault;
    if (failure == TransportFailure::none) {
      EXPECT_EQ(response.status, 503) << fault;
    }
  }
}

TEST(HttpsTransport, ACertificateThatDoesNotVerifyIsNotSent) {
  const TempDir dir("retryproof-https-transport");
  const auto other_ca =
      dir.write("other.pem", provider::generate_tls_identity().ca_certificate_pem);
  provider::ProviderServer server({}, {.port = 0, .tls = test_tls().identity});
  HttpTransport transport(server.base_url(), {}, other_ca.string());
  EXPECT_EQ(to_string(transport.send(post("k")).failure), to_string(TransportFailure::not_sent));
  EXPECT_EQ(server.core().journal_size(), 0u);
}

}  // namespace
}  // namespace retryproof::client
