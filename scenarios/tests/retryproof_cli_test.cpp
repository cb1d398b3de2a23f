// The retryproof program as a user runs it: a real process, real signals, real sockets.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <regex>

#include "child_process.hpp"
#include "provider_server.hpp"

namespace retryproof::scenarios {
namespace {

using std::chrono::seconds;

const std::string kBinary = RETRYPROOF_BINARY;

ExitStatus run_to_end(ChildProcess& child) {
  const auto status = child.wait(seconds(30));
  if (!status) ADD_FAILURE() << "the command did not finish; stderr: " << child.standard_error();
  return status.value_or(ExitStatus{.code = -1});
}

TEST(RetryproofCommand, HelpListsTheSubcommands) {
  ChildProcess child({kBinary, "--help"});
  EXPECT_EQ(run_to_end(child).code, 0);
  EXPECT_NE(child.standard_output().find("provider"), std::string::npos);
  EXPECT_NE(child.standard_output().find("demo"), std::string::npos);
}

TEST(RetryproofCommand, NoSubcommandIsAUsageError) {
  ChildProcess child({kBinary});
  const ExitStatus status = run_to_end(child);
  EXPECT_TRUE(status.exited());
  EXPECT_NE(status.code, 0);
  EXPECT_NE(child.standard_error().find("subcommand"), std::string::npos) << child.standard_error();
}

class ProviderProcess : public ::testing::TestWithParam<int> {};

TEST_P(ProviderProcess, PrintsItsUrlFirstServesLogsAndStopsCleanlyOnSignal) {
  ChildProcess child({kBinary, "provider", "--port", "0", "--seed", "7"});
  const auto url = child.read_line(seconds(10));
  ASSERT_TRUE(url) << child.standard_error();
  ASSERT_TRUE(std::regex_match(*url, std::regex(R"(http://127\.0\.0\.1:\d+)"))) << *url;

  httplib::Client client(*url);
  const auto created = client.Post("/jobs", {{"Idempotency-Key", "cli-key"}},
                                   R"({"orderId":"o-1"})", "application/json");
  ASSERT_TRUE(created);
  EXPECT_EQ(created->status, 201);

  child.send_signal(GetParam());
  const ExitStatus status = run_to_end(child);
  EXPECT_TRUE(status.exited()) << status.describe();
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(child.standard_error().find("[provider] key=cli-key NEW fault=none"), std::string::npos)
      << child.standard_error();
  EXPECT_EQ(child.standard_error().find("o-1"), std::string::npos) << "payloads are never logged";
}

INSTANTIATE_TEST_SUITE_P(StopSignals, ProviderProcess, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param_info) {
                           return param_info.param == SIGINT ? "SIGINT" : "SIGTERM";
                         });

TEST(RetryproofCommand, ProviderOnABusyPortSaysSoAndFails) {
  provider::ProviderServer occupant({}, {.port = 0});
  ChildProcess child({kBinary, "provider", "--port", std::to_string(occupant.port())});
  const ExitStatus status = run_to_end(child);
  EXPECT_EQ(status.code, 1);
  EXPECT_NE(
      child.standard_error().find("cannot listen on 127.0.0.1:" + std::to_string(occupant.port())),
      std::string::npos)
      << child.standard_error();
}

TEST(RetryproofCommand, ProviderRefusesAnOutOfRangePort) {
  ChildProcess child({kBinary, "provider", "--port", "70000"});
  const ExitStatus status = run_to_end(child);
  EXPECT_NE(status.code, 0);
  EXPECT_NE(child.standard_error().find("--port"), std::string::npos) << child.standard_error();
}

TEST(RetryproofCommand, DemoShowsTheDuplicateAndTheLookup) {
  ChildProcess child({kBinary, "demo"});
  EXPECT_EQ(run_to_end(child).code, 0) << child.standard_error();
  const std::string& out = child.standard_output();
  EXPECT_NE(out.find("jobs for order-A: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("jobs for order-B: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("jobs for order-B2: 2"), std::string::npos) << out;
  EXPECT_NE(out.find("jobs for order-C: 1"), std::string::npos) << out;
  EXPECT_NE(out.find("LOOKUP job="), std::string::npos) << out;
}

}  // namespace
}  // namespace retryproof::scenarios
