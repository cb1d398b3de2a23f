// `retryproof deliver` as a user runs it: a real process, an events file, a receiver on a
// socket, what it prints, its exit statuses, and errors that name the file and the field.
#include <gtest/gtest.h>

#include <fstream>

#include "common/temp_dir.hpp"
#include "deliver/signature.hpp"
#include "deliver/tests/webhook_receiver.hpp"
#include "scenarios/process/child_process.hpp"

namespace retryproof::deliver {
namespace {

using scenarios::ChildProcess;
using std::chrono::seconds;
using testing::Arrival;
using testing::WebhookReceiver;

const std::string kEvents =
    R"([{"id": "evt_1", "orderId": "order-1"}, {"id": "evt_2", "orderId": "order-2"},
        {"id": "evt_3", "orderId": "order-3"}])";

struct Delivered {
  int code = -1;
  std::string out;
  std::string err;
};

Delivered deliver(const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {RETRYPROOF_BINARY, "deliver"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ChildProcess child(argv);
  const auto status = child.wait(seconds(60));
  if (!status) ADD_FAILURE() << "deliver did not finish: " << child.standard_error();
  return {status ? status->code : -1, child.standard_output(), child.standard_error()};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DeliverCommand, SendsEveryEventTwiceSignedAndSaysHowEachWasSent) {
  TempDir dir("deliver-cli");
  const auto events = dir.write("events.json", kEvents);
  WebhookReceiver receiver;
  const Delivered run = deliver({"--target", receiver.url(), "--events", events.string(), "--seed",
                                 "4", "--secret", "s3cret"});
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_TRUE(contains(
      run.out, "6 deliveries of 3 events to " + receiver.url() + " (seed 4): 6 acknowledged"))
      << run.out;
  for (const char* how : {"concurrent with copy 1", "sequential, after copy 1 was answered",
                          "out-of-order, after evt_"})
    EXPECT_TRUE(contains(run.out, how)) << how << "\n" << run.out;
  const auto arrivals = receiver.arrivals();
  ASSERT_EQ(arrivals.size(), 6u);
  for (const Arrival& arrival : arrivals)
    EXPECT_EQ(arrival.signature, signature_header("s3cret", arrival.body));

  // The same seed, the same sequence (lines name the event, the copy and how it was sent).
  WebhookReceiver again;
  const Delivered replay =
      deliver({"--target", again.url(), "--events", events.string(), "--seed", "4"});
  const auto without_target = [](std::string text) {
    return text.substr(0, text.rfind("to http"));
  };
  EXPECT_EQ(without_target(replay.out), without_target(run.out));
}

TEST(DeliverCommand, ADeliveryThatIsNotAcknowledgedExitsOne) {
  TempDir dir("deliver-cli");
  const auto events = dir.write("events.json", kEvents);
  WebhookReceiver receiver([](const Arrival& arrival, WebhookReceiver&) {
    return arrival.event_id == "evt_2" && arrival.copy == 1 ? 500 : 200;
  });
  const Delivered run = deliver({"--target", receiver.url(), "--events", events.string()});
  EXPECT_EQ(run.code, 1) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "500 (not acknowledged)")) << run.out;
  EXPECT_TRUE(contains(run.out, "5 acknowledged, 1 not")) << run.out;
}

TEST(DeliverCommand, BadInputExitsTwoNamingTheFileAndTheField) {
  TempDir dir("deliver-cli");
  const auto events = dir.write("events.json", kEvents);
  const auto duplicate_ids = dir.write("dup.json", R"([{"id": "a"}, {"id": "a"}])");
  const auto broken = dir.write("broken.json", "[{\"id\": ");

  const Delivered bad_target = deliver({"--target", "localhost:80", "--events", events.string()});
  EXPECT_EQ(bad_target.code, 2);
  EXPECT_TRUE(
      contains(bad_target.err, "--target localhost:80: expected an http:// or https:// URL"))
      << bad_target.err;

  const Delivered ids =
      deliver({"--target", "http://127.0.0.1:1/", "--events", duplicate_ids.string()});
  EXPECT_EQ(ids.code, 2);
  EXPECT_TRUE(contains(ids.err, duplicate_ids.string() + ": events[1].id: \"a\" is also the id of "
                                                         "events[0]"))
      << ids.err;

  const Delivered not_json =
      deliver({"--target", "http://127.0.0.1:1/", "--events", broken.string()});
  EXPECT_EQ(not_json.code, 2);
  EXPECT_TRUE(contains(not_json.err, broken.string() + ": not valid JSON")) << not_json.err;

  const Delivered missing =
      deliver({"--target", "http://127.0.0.1:1/", "--events", (dir.path() / "nope.json").string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(contains(missing.err, "nope.json: cannot be read")) << missing.err;

  const Delivered timeout =
      deliver({"--target", "http://127.0.0.1:1/", "--events", events.string(), "--timeout", "3x"});
  EXPECT_EQ(timeout.code, 2);
  EXPECT_TRUE(contains(timeout.err, "3x")) << timeout.err;
}

TEST(DeliverCommand, HelpListsTheDuplicatesAndTheHeaders) {
  const Delivered help = deliver({"--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* part : {"--target", "--events", "--secret", "--seed",
                           "sequential:", "concurrent:", "out-of-order:", "Retryproof-Event-Id",
                           "Retryproof-Signature"})
    EXPECT_TRUE(contains(help.out, part)) << part << "\n" << help.out;
}

}  // namespace
}  // namespace retryproof::deliver
