// The provider over HTTPS, with a real OpenSSL client: answers, kept-alive connections,
// the versions, the certificate's names and trust, and the certificate files a user gives.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/ssl.h>

#include <nlohmann/json.hpp>

#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"
#include "provider/tests/tls_client.hpp"
#include "provider/tests/tls_fixture.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using testing::body_of;
using testing::OverTls;
using testing::raw_control_request;
using testing::raw_post_jobs;
using testing::raw_post_jobs_keep_alive;
using testing::status_of;
using testing::test_tls;
using testing::tls_exchange;
using testing::TlsConnection;
using testing::TlsEnd;
using namespace std::chrono_literals;

TEST_F(OverTls, AnswersWholeAndEndsTheStreamWithCloseNotify) {
  serve();
  EXPECT_TRUE(server->base_url().starts_with("https://127.0.0.1:")) << server->base_url();
  const auto exchange = tls_exchange(server->port(), ca(), raw_post_jobs("k", R"({"a":1})"));
  EXPECT_EQ(status_of(exchange.received), 201) << exchange.received;
  EXPECT_EQ(testing::complete_response_size(exchange.received), exchange.received.size());
  EXPECT_EQ(exchange.end, TlsEnd::close_notify) << exchange.tls_error;
  EXPECT_EQ(last_entry()["delivery"], "respond");
}

TEST_F(OverTls, KeepsAConnectionAliveAcrossRequests) {
  serve();
  TlsConnection connection(server->port(), {.ca_pem = ca()});
  ASSERT_TRUE(connection.send(raw_post_jobs_keep_alive("first", "{}")));
  ASSERT_TRUE(connection.send(raw_post_jobs("second", "{}")));
  const auto exchange = connection.read_until_closed();
  const auto first = testing::complete_response_size(exchange.received);
  ASSERT_TRUE(first) << exchange.received;
  EXPECT_EQ(status_of(exchange.received), 201);
  EXPECT_EQ(status_of(exchange.received.substr(*first)), 201) << exchange.received;
  EXPECT_EQ(exchange.end, TlsEnd::close_notify);
  EXPECT_EQ(server->core().job_count(), 2u);
}

TEST_F(OverTls, SpeaksTls12AndTls13AndRefusesOlderVersions) {
  serve();
  for (const int version : {TLS1_2_VERSION, TLS1_3_VERSION}) {
    TlsConnection connection(server->port(),
                             {.ca_pem = ca(), .min_version = version, .max_version = version});
    EXPECT_EQ(connection.version(), version);
    ASSERT_TRUE(connection.send(raw_post_jobs("v" + std::to_string(version), "{}")));
    EXPECT_EQ(status_of(connection.read_until_closed().received), 201);
  }
  EXPECT_THROW(TlsConnection(server->port(), {.ca_pem = ca(), .max_version = TLS1_1_VERSION}),
               std::runtime_error);
}

TEST_F(OverTls, AClientThatTrustsAnotherCaFailsTheHandshake) {
  serve();
  const GeneratedTls other = generate_tls_identity();
  const auto error = testing::tls_handshake_error(server->port(), other.ca_certificate_pem);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("certificate verify failed"), std::string::npos) << *error;
}

TEST_F(OverTls, TheCertificateNamesLocalhostAnd127001AndIpv6Loopback) {
  serve();
  for (const std::string ip : {"127.0.0.1", "::1"}) {
    // Only the name is checked here: the connection itself is to 127.0.0.1.
    TlsConnection connection(server->port(), {.ca_pem = ca(), .verify_ip = ip});
    EXPECT_TRUE(connection.send(raw_post_jobs("k" + ip, "{}")));
  }
  EXPECT_THROW(TlsConnection(server->port(), {.ca_pem = ca(), .verify_ip = "10.0.0.1"}),
               std::runtime_error);
}

// The live page served over TLS posts its plan form and outage drill from its own https://
// origin: served. An http:// origin on the same port is not the page, and is refused.
TEST_F(OverTls, ItsOwnHttpsOriginMayPostToTheControlPlaneAndAnHttpOneMayNot) {
  serve();
  const int port = server->port();
  const std::string plan = R"({"faults":["commit-then-error"]})";
  for (const std::string host : {"127.0.0.1", "localhost", "[::1]"}) {
    const std::string origin = "https://" + host + ":" + std::to_string(port);
    const auto posted =
        tls_exchange(port, ca(), raw_control_request(port, "POST", "/_test/faults", plan, origin));
    EXPECT_EQ(status_of(posted.received), 200) << origin << "\n" << posted.received;
    // The plan is in force: the next create meets its fault.
    tls_exchange(port, ca(), raw_post_jobs("after-" + host, "{}"));
    EXPECT_EQ(last_entry()["fault"], "commit-then-error") << origin;
  }

  const std::string http_origin = "http://127.0.0.1:" + std::to_string(port);
  const auto refused = tls_exchange(
      port, ca(), raw_control_request(port, "POST", "/_test/faults", plan, http_origin));
  EXPECT_EQ(status_of(refused.received), 403) << refused.received;
  const json body = json::parse(body_of(refused.received), nullptr, false);
  EXPECT_EQ(body["error"], "forbidden_origin") << body;
  EXPECT_NE(body.value("detail", "").find("https://127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << body;
  EXPECT_EQ(status_of(tls_exchange(port, ca(), raw_post_jobs("refused-plan", "{}")).received), 201)
      << "the refused plan was installed";
}

class TlsFiles : public ::testing::Test {
 protected:
  std::string problem(const std::filesystem::path& certificate_file,
                      const std::filesystem::path& key_file) {
    try {
      load_tls_identity(certificate_file, key_file);
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "";
  }

  TempDir dir{"retryproof-tls-files"};
  std::filesystem::path certificate =
      dir.write("cert.pem", test_tls().identity.certificate_chain_pem);
  std::filesystem::path key = dir.write("key.pem", test_tls().identity.private_key_pem);
};

TEST_F(TlsFiles, AGoodPairLoads) {
  EXPECT_EQ(problem(certificate, key), "");
}

TEST_F(TlsFiles, EachBadFileIsNamedWithItsProblem) {
  const auto missing = dir.path() / "missing.pem";
  EXPECT_EQ(problem(missing, key),
            "cannot read the certificate file " + missing.string() + ": No such file or directory");
  EXPECT_NE(problem(key, certificate)
                .find("holds a private key, not a certificate (are the "
                      "certificate and key files swapped?)"),
            std::string::npos);
  const auto garbage = dir.write("garbage.pem", "not a certificate\n");
  EXPECT_NE(problem(garbage, key)
                .find("the certificate file " + garbage.string() + " holds no PEM certificate"),
            std::string::npos)
      << problem(garbage, key);
  EXPECT_NE(problem(certificate, garbage)
                .find("the private key file " + garbage.string() + " holds no PEM private key"),
            std::string::npos)
      << problem(certificate, garbage);
  const auto other_key = dir.write("other.pem", generate_tls_identity().identity.private_key_pem);
  EXPECT_EQ(problem(certificate, other_key), "the private key in " + other_key.string() +
                                                 " is not the key of the certificate in " +
                                                 certificate.string());
  EXPECT_NE(problem(certificate, dir.path()).find("is a directory"), std::string::npos);
}

}  // namespace
}  // namespace retryproof::provider
