// `retryproof provider` as a process, the way the harness runs it: stopping on SIGTERM
// whatever clients hold, running out of descriptors, a standard error nobody reads, and
// where the control token may come from.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "common/temp_dir.hpp"
#include "provider/tests/eventually.hpp"
#include "provider/tests/raw_http.hpp"
#include "provider/tests/tls_client.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::provider {
namespace {

using nlohmann::json;
using scenarios::ChildProcess;
using scenarios::ExitStatus;
using testing::eventually;
using testing::raw_control_request;
using testing::raw_exchange;
using testing::raw_post_jobs;
using testing::RawConnection;
using testing::ReadUntil;
using testing::status_of;
using namespace std::chrono_literals;

const std::string kBinary = RETRYPROOF_BINARY;

// A provider process and the port it printed on its first line.
struct Provider {
  explicit Provider(const std::vector<std::string>& argv,
                    const std::map<std::string, std::string>& environment = {})
      : child(argv, environment) {
    const auto url = child.read_line(10s);
    if (!url) throw std::runtime_error("the provider did not start: " + child.standard_error());
    port = std::stoi(url->substr(url->rfind(':') + 1));
  }

  int control(const std::string& method, const std::string& path, const std::string& body = {}) {
    return status_of(
        raw_exchange(port, raw_control_request(port, method, path, body), ReadUntil::response)
            .received);
  }

  ChildProcess child;
  int port = 0;
};

TEST(ProviderProcess, StopsOnSigtermWithoutWaitingOutWhatClientsHold) {
  Provider provider({kBinary, "provider", "--port", "0"});
  const int port = provider.port;
  for (const char* key : {"a", "b", "c"}) {
    ASSERT_EQ(status_of(raw_exchange(port, raw_post_jobs(key, "{}"), ReadUntil::response).received),
              201);
  }
  ASSERT_EQ(provider.control("POST", "/_test/faults",
                             R"({"faults":["commit-then-delay:30s","delay-before-commit:30s"]})"),
            200);
  const auto journal_holds = [&](int count) {
    return eventually([&] {
      const auto journal = raw_exchange(
          port, raw_control_request(port, "GET", "/_test/journal?limit=1000"), ReadUntil::response);
      return json::parse(testing::body_of(journal.received), nullptr, false)["count"] == count;
    });
  };
  // One at a time, so each hold is drawn by the request meant for it and none by an idle one.
  std::vector<RawConnection> clients;
  int journalled = 3;
  for (const char* key : {"held", "delayed"}) {
    clients.emplace_back(port);
    clients.back().send(raw_post_jobs(key, "{}"));
    ASSERT_TRUE(journal_holds(++journalled)) << key << " never reached the provider";
  }
  ASSERT_TRUE(testing::open_idle_and_half_sent(port, 20, clients));
  ASSERT_TRUE(journal_holds(25));

  // The holds last 30 s: stopping within the deadline means they were not waited out.
  provider.child.send_signal(SIGTERM);
  const auto status = provider.child.wait(10s);
  ASSERT_TRUE(status) << "still running 10 s after SIGTERM";
  EXPECT_EQ(status->code, 0) << status->describe();
  const std::string& log = provider.child.standard_error();
  EXPECT_NE(log.find("[provider] stopping on SIGTERM"), std::string::npos) << log;
  for (const char* key : {"a", "b", "c", "held", "delayed", "idle-19"})
    EXPECT_NE(log.find("key=\"" + std::string(key) + "\" NEW"), std::string::npos) << key;
  // Stopping ended the delay before the commit, so it committed as it would have at its end.
  EXPECT_NE(log.find("key=\"delayed\" COMMITTED"), std::string::npos) << log;
}

// The provider's open descriptors, read from /proc.
std::size_t open_descriptors(pid_t pid) {
  std::error_code error;
  std::size_t count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++count;
  }
  return count;
}

TEST(ProviderProcess, RunningOutOfDescriptorsNeitherCrashesItNorTurnsADropIntoAnAnswer) {
  Provider provider({"/bin/sh", "-c", "ulimit -n 64 && exec \"$0\" provider --port 0", kBinary});
  const int port = provider.port;
  ASSERT_EQ(provider.control("POST", "/_test/faults", R"({"faults":["commit-then-drop"]})"), 200);
  // This connection is accepted before the descriptors run out: its first answer says so.
  RawConnection dropped(port);
  dropped.send("GET /jobs/by-idempotency-key/none HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(dropped.read_response(5s));
  dropped.send(
      "POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: k\r\nContent-Length: 2\r\n\r\n{");

  std::vector<RawConnection> flood;
  for (int i = 0; i < 200; ++i)
    flood.emplace_back(port);  // the listen backlog holds what the provider cannot accept
  ASSERT_TRUE(eventually([&] { return open_descriptors(provider.child.pid()) >= 62; }))
      << open_descriptors(provider.child.pid()) << " descriptors open";

  dropped.send("}");  // the commit-then-drop, with not one descriptor to spare
  const auto exchange = dropped.read_until_closed(5s);
  EXPECT_EQ(exchange.received, "") << "the drop was answered instead";
  EXPECT_EQ(exchange.end, testing::ConnectionEnd::eof);

  flood.clear();
  EXPECT_TRUE(eventually(
      [&] {
        try {
          const auto jobs = raw_exchange(port, raw_control_request(port, "GET", "/_test/jobs"),
                                         ReadUntil::response, 1s);
          return json::parse(testing::body_of(jobs.received), nullptr, false)["count"] == 1;
        } catch (const std::runtime_error&) {
          return false;
        }
      },
      30s))
      << "the provider did not serve again once descriptors were free";
  EXPECT_FALSE(provider.child.wait(0ms)) << "the provider ended";
}

TEST(ProviderProcess, AStandardErrorNobodyReadsNeverFreezesIt) {
  Provider provider({kBinary, "provider", "--port", "0"});
  // From here on nobody reads the provider's standard error until it is stopped: each
  // request logs a line, and the pipe holds about 1,500 of them.
  httplib::Client client("127.0.0.1", provider.port);
  client.set_keep_alive(true);
  client.set_read_timeout(5, 0);
  for (int i = 0; i < 10'000; ++i) {
    const auto result = client.Post("/jobs", {{"Idempotency-Key", "k" + std::to_string(i)}}, "{}",
                                    "application/json");
    ASSERT_TRUE(result) << "request " << i << ": " << httplib::to_string(result.error());
    ASSERT_EQ(result->status, 201);
  }
  provider.child.send_signal(SIGTERM);
  const auto status = provider.child.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0);
  EXPECT_NE(provider.child.standard_error().find("log lines dropped"), std::string::npos)
      << provider.child.standard_error().substr(0, 500);
}

// Whether `GET /_test/jobs` is refused without the token and served with it.
void expect_token_required(int port, const std::string& token) {
  httplib::Client client("127.0.0.1", port);
  const auto refused = client.Get("/_test/jobs");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  client.set_bearer_token_auth(token.c_str());
  const auto allowed = client.Get("/_test/jobs");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
}

TEST(ProviderProcess, TheControlTokenCanComeFromTheEnvironment) {
  Provider provider({kBinary, "provider", "--port", "0"},
                    {{"RETRYPROOF_CONTROL_TOKEN", "env-s3cret"}});
  expect_token_required(provider.port, "env-s3cret");
}

TEST(ProviderProcess, TheControlTokenCanComeFromAFileAndStaysOutOfTheCommandLine) {
  TempDir dir;
  const auto file = dir.write("token", "file-s3cret\n");
  Provider provider({kBinary, "provider", "--port", "0", "--control-token-file", file.string()});
  expect_token_required(provider.port, "file-s3cret");
  std::ifstream cmdline("/proc/" + std::to_string(provider.child.pid()) + "/cmdline");
  std::stringstream seen;
  seen << cmdline.rdbuf();
  EXPECT_EQ(seen.str().find("s3cret"), std::string::npos);
}

TEST(ProviderProcess, AnEmptyControlTokenIsRefusedWhereverItComesFrom) {
  TempDir dir;
  const auto empty_file = dir.write("token", "\n");
  const std::vector<std::pair<std::vector<std::string>, std::map<std::string, std::string>>> cases =
      {
          {{"--control-token", ""}, {}},
          {{"--control-token-file", empty_file.string()}, {}},
          {{}, {{"RETRYPROOF_CONTROL_TOKEN", ""}}},
      };
  for (const auto& [flags, environment] : cases) {
    std::vector<std::string> argv = {kBinary, "provider", "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ChildProcess child(argv, environment);
    const auto status = child.wait(10s);
    ASSERT_TRUE(status) << "it started with an empty token";
    EXPECT_EQ(status->code, 2);
    EXPECT_NE(child.standard_error().find("empty"), std::string::npos) << child.standard_error();
    EXPECT_EQ(child.standard_output(), "") << "nothing may listen with an empty token";
  }
}

// --log: the same per-request lines in a file, or none at all; standard error stays quiet.
TEST(ProviderProcess, LogsToAFileOrNowhereAsLogSays) {
  const TempDir dir("retryproof-log");
  const std::string file = (dir.path() / "provider.log").string();
  for (const std::string& destination : {file, std::string("none")}) {
    Provider provider({kBinary, "provider", "--port", "0", "--log", destination});
    ASSERT_EQ(
        status_of(raw_exchange(provider.port, raw_post_jobs("logged", "{}"), ReadUntil::response)
                      .received),
        201);
    provider.child.send_signal(SIGTERM);
    const auto status = provider.child.wait(10s);
    ASSERT_TRUE(status) << "still running 10 s after SIGTERM";
    EXPECT_EQ(status->code, 0) << status->describe();
    EXPECT_EQ(provider.child.standard_error().find("[provider]"), std::string::npos)
        << destination << ": " << provider.child.standard_error();
  }
  std::ifstream written(file);
  std::stringstream text;
  text << written.rdbuf();
  EXPECT_NE(text.str().find("[provider] key=\"logged\" NEW"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[provider] stopping on SIGTERM"), std::string::npos) << text.str();
}

TEST(ProviderProcess, ALogFileThatCannotBeOpenedIsAUsageError) {
  ChildProcess child({kBinary, "provider", "--port", "0", "--log", "/nonexistent-dir/p.log"});
  const auto status = child.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 2);
  EXPECT_NE(child.standard_error().find(
                "--log /nonexistent-dir/p.log: cannot be opened for appending: No such file"),
            std::string::npos)
      << child.standard_error();
}

TEST(ProviderProcess, AMemoryFlagWithABadValueIsAUsageErrorNamingIt) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--max-keys", "0"}, "--max-keys 0: expected a whole number from 1"},
      {{"--max-keys", "10k"}, "--max-keys 10k: expected a whole number from 1"},
      {{"--journal-limit", "-5"}, "--journal-limit -5: expected a whole number from 1"},
      {{"--journal-file", "/tmp/j.jsonl"}, "--journal-file /tmp/j.jsonl: needs --journal-limit"},
      {{"--journal-limit", "10", "--journal-file", "/nonexistent-dir/j.jsonl"},
       "--journal-file /nonexistent-dir/j.jsonl: cannot be written"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> argv = {kBinary, "provider", "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ChildProcess child(argv);
    const auto status = child.wait(10s);
    ASSERT_TRUE(status) << flags[0] << ": it started";
    EXPECT_EQ(status->code, 2) << flags[0];
    EXPECT_NE(child.standard_error().find(message), std::string::npos) << child.standard_error();
  }
}

// --tls: an https:// URL on the first line, the CA's file on the second, and that file is
// all a client needs to trust the provider; it goes when the provider stops.
TEST(ProviderProcess, WithTlsItNamesAnHttpsUrlAndTheCaFileThatVerifiesIt) {
  Provider provider({kBinary, "provider", "--port", "0", "--tls", "--log", "none"});
  const auto ca_line = provider.child.read_line(10s);
  ASSERT_TRUE(ca_line) << provider.child.standard_error();
  ASSERT_TRUE(ca_line->starts_with("CA file: ")) << *ca_line;
  const std::filesystem::path ca_file = ca_line->substr(9);
  std::ifstream in(ca_file);
  std::stringstream ca;
  ca << in.rdbuf();
  ASSERT_NE(ca.str().find("-----BEGIN CERTIFICATE-----"), std::string::npos) << ca_file;
  const auto exchange = testing::tls_exchange(provider.port, ca.str(), raw_post_jobs("k", "{}"));
  EXPECT_EQ(status_of(exchange.received), 201) << exchange.tls_error;
  provider.child.send_signal(SIGTERM);
  const auto status = provider.child.wait(10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0);
  EXPECT_FALSE(std::filesystem::exists(ca_file));
}

TEST(ProviderProcess, BadTlsFilesAreAUsageErrorNamingTheFileAndItsProblem) {
  TempDir dir;
  const auto not_pem = dir.write("cert.pem", "hello\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tls-cert", "/nonexistent/c.pem", "--tls-key", not_pem.string()},
       "--tls-cert/--tls-key: cannot read the certificate file /nonexistent/c.pem: No such file"},
      {{"--tls-cert", not_pem.string(), "--tls-key", not_pem.string()},
       "--tls-cert/--tls-key: the certificate file " + not_pem.string() +
           " holds no PEM certificate"},
      {{"--tls-cert", not_pem.string()}, "--tls-cert requires --tls-key"},
      {{"--tls", "--tls-key", not_pem.string()}, "--tls excludes --tls-key"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> argv = {kBinary, "provider", "--port", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ChildProcess child(argv);
    const auto status = child.wait(10s);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->code, 2) << child.standard_error();
    EXPECT_NE(child.standard_error().find(message), std::string::npos) << child.standard_error();
    EXPECT_EQ(child.standard_output(), "");
  }
}

}  // namespace
}  // namespace retryproof::provider
