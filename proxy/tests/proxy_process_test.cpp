// `retryproof proxy` as a process: it prints its URL first, forwards to a provider,
// refuses a bad --upstream with a message, documents its faults in --help, and stops on
// SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "common/temp_dir.hpp"
#include "provider/provider_server.hpp"
#include "provider/tests/raw_http.hpp"
#include "provider/tests/tls_client.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::proxy {
namespace {

using provider::testing::raw_control_request;
using provider::testing::raw_exchange;
using provider::testing::raw_post_jobs;
using provider::testing::ReadUntil;
using provider::testing::status_of;
using scenarios::ChildProcess;
using namespace std::chrono_literals;

const std::string kBinary = RETRYPROOF_BINARY;

TEST(ProxyProcess, PrintsItsUrlForwardsAndStopsOnSigterm) {
  provider::ProviderServer upstream({}, {.port = 0});
  ChildProcess proxy({kBinary, "proxy", "--upstream", upstream.base_url(), "--port", "0"});
  const auto url = proxy.read_line(10s);
  ASSERT_TRUE(url) << proxy.standard_error();
  EXPECT_TRUE(url->starts_with("http://127.0.0.1:")) << *url;
  const int port = std::stoi(url->substr(url->rfind(':') + 1));

  const std::string plan = R"({"faults":["commit-then-drop"]})";
  EXPECT_EQ(status_of(raw_exchange(port, raw_control_request(port, "POST", "/_test/faults", plan),
                                   ReadUntil::response)
                          .received),
            200);
  EXPECT_EQ(raw_exchange(port, raw_post_jobs("k", "{}")).received, "");
  EXPECT_EQ(upstream.core().job_count(), 1u);

  proxy.send_signal(SIGTERM);
  const auto status = proxy.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0) << status->describe();
  EXPECT_NE(proxy.standard_error().find("[proxy] key=\"k\" NEW fault=commit-then-drop"),
            std::string::npos)
      << proxy.standard_error();
}

TEST(ProxyProcess, TheControlTokenGuardsItsControlPlaneAsTheProvidersDoes) {
  provider::ProviderServer upstream({}, {.port = 0});
  ChildProcess proxy({kBinary, "proxy", "--upstream", upstream.base_url(), "--port", "0"},
                     {{"RETRYPROOF_CONTROL_TOKEN", "T"}});
  const auto url = proxy.read_line(10s);
  ASSERT_TRUE(url) << proxy.standard_error();
  const int port = std::stoi(url->substr(url->rfind(':') + 1));
  const std::string bare = raw_control_request(port, "GET", "/_test/journal");
  EXPECT_EQ(status_of(raw_exchange(port, bare, ReadUntil::response).received), 401);
  std::string bearing = bare;
  bearing.insert(bearing.find("\r\n") + 2, "Authorization: Bearer T\r\n");
  EXPECT_EQ(status_of(raw_exchange(port, bearing, ReadUntil::response).received), 200);

  ChildProcess empty({kBinary, "proxy", "--upstream", upstream.base_url(), "--port", "0"},
                     {{"RETRYPROOF_CONTROL_TOKEN", ""}});
  const auto status = empty.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 2);
  EXPECT_NE(empty.standard_error().find("would leave /_test/ unprotected"), std::string::npos);
}

TEST(ProxyProcess, AMalformedUpstreamIsAUsageErrorThatSaysWhy) {
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"--upstream", "localhost:4040"},
        std::vector<std::string>{"--upstream", "http://localhost:99999"},
        std::vector<std::string>{"--upstream", "https://user@api.example"}}) {
    std::vector<std::string> argv = {kBinary, "proxy", "--port", "0"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    ChildProcess proxy(argv);
    const auto status = proxy.wait(10s);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 2) << arguments[1];
    EXPECT_NE(proxy.standard_error().find("retryproof proxy: --upstream \"" + arguments[1] + "\""),
              std::string::npos)
        << proxy.standard_error();
    EXPECT_NE(proxy.standard_error().find("expected http[s]://HOST[:PORT]"), std::string::npos);
  }
}

TEST(ProxyProcess, ABadUpstreamCaFileIsAUsageErrorNamingIt) {
  const TempDir dir("retryproof-proxy-ca");
  const auto not_a_certificate = dir.write("key.pem", "-----BEGIN PRIVATE KEY-----\n");
  const auto missing = dir.path() / "missing.pem";
  for (const auto& [file, problem] :
       {std::pair{missing.string(), "cannot read the --upstream-ca file " + missing.string()},
        std::pair{not_a_certificate.string(), "the --upstream-ca file " +
                                                  not_a_certificate.string() +
                                                  " holds no PEM certificate"}}) {
    ChildProcess proxy({kBinary, "proxy", "--port", "0", "--upstream", "https://127.0.0.1:1",
                        "--upstream-ca", file});
    const auto status = proxy.wait(10s);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 2) << file;
    EXPECT_NE(proxy.standard_error().find("retryproof proxy: " + problem), std::string::npos)
        << proxy.standard_error();
  }
}

// HTTPS on both sides: the proxy serves its clients with a certificate it made (its URL
// and CA file first, as the provider's), and verifies an HTTPS provider through its CA.
TEST(ProxyProcess, WithTlsItServesHttpsAndFrontsAnHttpsUpstream) {
  const provider::GeneratedTls upstream_tls = provider::generate_tls_identity();
  provider::ProviderServer upstream({}, {.port = 0, .tls = upstream_tls.identity});
  const TempDir dir("retryproof-proxy-ca");
  const auto upstream_ca = dir.write("upstream-ca.pem", upstream_tls.ca_certificate_pem);
  ChildProcess proxy({kBinary, "proxy", "--upstream", upstream.base_url(), "--upstream-ca",
                      upstream_ca.string(), "--port", "0", "--tls"});
  const auto url = proxy.read_line(10s);
  ASSERT_TRUE(url) << proxy.standard_error();
  EXPECT_TRUE(url->starts_with("https://127.0.0.1:")) << *url;
  const auto ca_line = proxy.read_line(10s);
  ASSERT_TRUE(ca_line && ca_line->starts_with("CA file: ")) << proxy.standard_error();
  std::ifstream ca_file(ca_line->substr(9));
  const std::string ca((std::istreambuf_iterator<char>(ca_file)), {});
  ASSERT_NE(ca.find("-----BEGIN CERTIFICATE-----"), std::string::npos) << *ca_line;

  const int port = std::stoi(url->substr(url->rfind(':') + 1));
  const auto exchange = provider::testing::tls_exchange(port, ca, raw_post_jobs("k", "{}"));
  EXPECT_EQ(status_of(exchange.received), 201) << exchange.received;
  EXPECT_EQ(upstream.core().job_count(), 1u);
  proxy.send_signal(SIGTERM);
  ASSERT_TRUE(proxy.wait(10s));
  EXPECT_NE(proxy.standard_error().find("verified against " + upstream_ca.string()),
            std::string::npos)
      << proxy.standard_error();
}

TEST(ProxyProcess, RequiresAnUpstream) {
  ChildProcess proxy({kBinary, "proxy", "--port", "0"});
  const auto status = proxy.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 2);
  EXPECT_NE(proxy.standard_error().find("--upstream is required"), std::string::npos)
      << proxy.standard_error();
}

TEST(ProxyProcess, HelpSaysWhatEachFaultDoesInFrontOfTheUpstream) {
  ChildProcess proxy({kBinary, "proxy", "--help"});
  const auto status = proxy.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0);
  const std::string& help = proxy.standard_output();
  EXPECT_NE(help.find("--upstream"), std::string::npos);
  EXPECT_NE(help.find("--enforce-keys"), std::string::npos);
  EXPECT_NE(help.find("commit-then-drop"), std::string::npos);
  EXPECT_NE(help.find("once the upstream has committed, FIN without one byte"), std::string::npos);
}

// The program's proxy records --operation-field and answers GET /_test/verdicts by it.
TEST(ProxyProcess, RecordsTheOperationFieldAndJudgesItsJournal) {
  provider::ProviderServer upstream({}, {.port = 0});
  ChildProcess proxy({kBinary, "proxy", "--upstream", upstream.base_url(), "--port", "0",
                      "--operation-field", "orderId"});
  const auto url = proxy.read_line(10s);
  ASSERT_TRUE(url) << proxy.standard_error();
  const int port = std::stoi(url->substr(url->rfind(':') + 1));
  for (const std::string key : {"a", "b"}) {
    EXPECT_EQ(status_of(raw_exchange(port, raw_post_jobs(key, R"({"orderId":"o-1"})"),
                                     ReadUntil::response)
                            .received),
              201);
  }
  const std::string verdicts =
      raw_exchange(port, raw_control_request(port, "GET", "/_test/verdicts?format=text"),
                   ReadUntil::response)
          .received;
  EXPECT_EQ(status_of(verdicts), 200) << verdicts;
  EXPECT_NE(verdicts.find("operation orderId=o-1 has 2 jobs"), std::string::npos) << verdicts;
  proxy.send_signal(SIGTERM);
  ASSERT_TRUE(proxy.wait(10s));
}

TEST(ProxyProcess, BadMemoryBoundsAreUsageErrorsNamingTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--max-keys", "0"}, "--max-keys 0: expected a whole number from 1"},
      {{"--journal-limit", "10k"}, "--journal-limit 10k: expected a whole number from 1"},
      {{"--journal-file", "/tmp/j.jsonl"}, "--journal-file /tmp/j.jsonl: needs --journal-limit"},
  };
  for (const auto& [flags, said] : cases) {
    std::vector<std::string> argv = {kBinary,  "proxy", "--upstream", "http://127.0.0.1:1",
                                     "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ChildProcess proxy(argv);
    const auto status = proxy.wait(10s);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 2) << said;
    EXPECT_NE(proxy.standard_error().find("retryproof proxy: " + said), std::string::npos)
        << proxy.standard_error();
  }
}

// This process's child's resident memory in KiB, from /proc.
long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

// Bounded as the provider is: under chaos that fails every create before the commit, the
// proxy journals each request and counts its key's attempts. With --max-keys and
// --journal-limit, 8,000 more new keys of a kilobyte leave its resident set where 2,000 left
// it; unbounded, the counts and the journal's keys alone would be some 16 MB more.
TEST(ProxyProcess, ItsResidentSetStaysBoundedUnderManyNewKeys) {
  const TempDir dir;
  const auto plan =
      dir.write("plan.json", R"({"chaos":{"seed":1,"rates":{"fail-before-commit":1}}})");
  // Its log (a line a request) to /dev/null: the pipe is read only when the test waits.
  ChildProcess proxy({"/bin/sh", "-c",
                      "exec '" + kBinary +
                          "' proxy --upstream http://127.0.0.1:1 --port 0 --max-keys 100 "
                          "--journal-limit 100 --plan '" +
                          plan.string() + "' 2>/dev/null"});
  const auto url = proxy.read_line(10s);
  ASSERT_TRUE(url);
  const int port = std::stoi(url->substr(url->rfind(':') + 1));
  provider::testing::RawConnection connection(port);
  const std::string padding(1000, 'k');
  const auto send = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      const std::string key = padding + std::to_string(i);
      ASSERT_TRUE(connection.send("POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: " +
                                  key + "\r\nContent-Length: 2\r\n\r\n{}"));
      const auto answer = connection.read_response(10s);
      ASSERT_TRUE(answer) << i;
      ASSERT_EQ(status_of(*answer), 503) << *answer;
    }
  };
  send(0, 2000);
  const long before = resident_kib(proxy.pid());
  send(2000, 10000);
  const long after = resident_kib(proxy.pid());
  ASSERT_GT(before, 0);
  EXPECT_LT(after - before, 4 * 1024) << "KiB grown over 8,000 new keys";
}

TEST(ProxyProcess, ABadOperationFieldIsAUsageError) {
  ChildProcess proxy({kBinary, "proxy", "--upstream", "http://127.0.0.1:1", "--port", "0",
                      "--operation-field", "/a~2"});
  const auto status = proxy.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 2);
  EXPECT_NE(
      proxy.standard_error().find("retryproof proxy: --operation-field /a~2: not a JSON Pointer"),
      std::string::npos)
      << proxy.standard_error();
}

}  // namespace
}  // namespace retryproof::proxy
