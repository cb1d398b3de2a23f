// embed/cpp/session.hpp's serve() on string streams: tagged answers, malformed lines, a
// handler that throws, and operations run at once (five handlers meet at a latch only if
// they run together; the latch's wait has a deadline, so a serial serve() fails, not hangs).
#include "embed/cpp/session.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <sstream>

namespace retryproof::session {
namespace {

using nlohmann::json;

struct Served {
  int code = 0;
  std::map<std::string, json> answers;  // by id, without it
  std::string errors;
};

Served served(const Handler& handler, const std::string& input, std::size_t max_in_flight = 64) {
  std::istringstream in(input);
  std::ostringstream out;
  std::ostringstream err;
  Served result;
  result.code = serve(
      handler, {.max_in_flight = max_in_flight, .input = &in, .output = &out, .errors = &err});
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    json answer = json::parse(line);
    const std::string id = answer["id"];
    answer.erase("id");
    EXPECT_TRUE(result.answers.emplace(id, answer).second) << "a second answer for " << id;
  }
  result.errors = err.str();
  return result;
}

std::string operations(int count) {
  std::string text;
  for (int n = 0; n < count; ++n) {
    text += json{{"id", "a-" + std::to_string(n)},
                 {"operationId", "op-" + std::to_string(n)},
                 {"payload", {{"n", n}}}}
                .dump() +
            "\n";
  }
  return text;
}

TEST(SessionHelper, AnswersEachOperationOnceTaggedWithItsId) {
  const Served result = served(
      [](const Operation& op) {
        return succeeded("job-" + op.operation_id + "-" + op.payload["n"].dump());
      },
      operations(10));
  EXPECT_EQ(result.code, 0);
  ASSERT_EQ(result.answers.size(), 10u);
  EXPECT_EQ(result.answers.at("a-7"), json({{"outcome", "succeeded"}, {"jobId", "job-op-7-7"}}));
}

TEST(SessionHelper, AHandlerThatThrowsIsAnsweredUnknown) {
  const Served result =
      served([](const Operation&) -> json { throw std::runtime_error("the provider went away"); },
             operations(1));
  EXPECT_EQ(result.answers.at("a-0"),
            json({{"outcome", "unknown"}, {"reason", "client error: the provider went away"}}));
  EXPECT_NE(result.errors.find("a-0: the provider went away"), std::string::npos);
}

TEST(SessionHelper, NamesMalformedLinesAndAnswersThoseWithAnId) {
  const Served result = served([](const Operation&) { return failed("validation"); },
                               "not json\n[1]\n"
                               R"({"id":"p","operationId":"op","payload":3})"
                               "\n"
                               R"({"id":"q"})"
                               "\n"
                               R"({"id":"ok","operationId":"op"})"
                               "\n"
                               R"({"id":"ok","operationId":"op"})"
                               "\n");
  EXPECT_EQ(result.answers,
            (std::map<std::string, json>{
                {"p", failed("malformed operation: \"payload\" must be a JSON object")},
                {"q", failed("malformed operation: \"operationId\" must be a non-empty string")},
                {"ok", failed("validation")}}));
  for (const char* said : {"input line 1: not JSON", "input line 2: not a JSON object",
                           "input line 6: the id \"ok\" was sent before"}) {
    EXPECT_NE(result.errors.find(said), std::string::npos) << result.errors;
  }
}

TEST(SessionHelper, RunsOperationsAtOnceAndAtMostMaxInFlight) {
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;
  int most = 0;
  const Served result = served(
      [&](const Operation& op) {
        std::unique_lock lock(mutex);
        most = std::max(most, ++running);
        changed.notify_all();
        const bool met =
            changed.wait_for(lock, std::chrono::seconds(30), [&] { return most >= 5; });
        --running;
        return met ? succeeded("job-" + op.operation_id) : failed("ran alone");
      },
      operations(12), 5);
  EXPECT_EQ(most, 5);
  ASSERT_EQ(result.answers.size(), 12u);
  for (const auto& [id, answer] : result.answers)
    EXPECT_EQ(answer["outcome"], "succeeded") << id;
}

}  // namespace
}  // namespace retryproof::session
