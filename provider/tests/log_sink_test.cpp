// The log sink never makes its caller wait on the reader: a pipe nobody reads costs
// lines, counted and reported, never a blocked request.
#include "provider/log_sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>

#include "provider/tests/eventually.hpp"

namespace retryproof::provider {
namespace {

using namespace std::chrono_literals;

// A pipe, both ends closed with it.
struct Pipe {
  Pipe() {
    if (pipe2(ends.data(), O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  }
  ~Pipe() {
    for (const int end : ends)
      if (end >= 0) close(end);
  }
  // Everything written so far, without waiting for more.
  std::string drain() const {
    fcntl(ends[0], F_SETFL, O_NONBLOCK);
    std::string text;
    std::array<char, 65536> buffer{};
    for (ssize_t n; (n = read(ends[0], buffer.data(), buffer.size())) > 0;)
      text.append(buffer.data(), static_cast<std::size_t>(n));
    return text;
  }
  std::array<int, 2> ends{-1, -1};
};

TEST(LogSink, WritesEveryLineInOrderWhenTheReaderKeepsUp) {
  Pipe pipe;
  {
    LogSink sink(pipe.ends[1]);
    sink.write("one");
    sink.write("two");
    sink.stop();
    EXPECT_EQ(sink.dropped(), 0u);
  }
  EXPECT_EQ(pipe.drain(), "one\ntwo\n");
}

TEST(LogSink, EachLineIsWrittenWithoutStopWhetherTheWriterWasIdleOrGathering) {
  // write() wakes the writer only from its idle wait; a line that comes while the writer
  // writes or gathers the next batch waits for that, never for another line or for stop.
  Pipe pipe;
  LogSink sink(pipe.ends[1]);
  std::string written;
  for (const std::string line : {"one", "two", "three"}) {
    sink.write(line);
    EXPECT_TRUE(testing::eventually([&] {
      written += pipe.drain();
      return written.ends_with(line + "\n");
    })) << "never written: "
        << line;
  }
  for (int i = 0; i < 1000; ++i)  // a burst: batches, each gathered while one is written
    sink.write("burst " + std::to_string(i));
  EXPECT_TRUE(testing::eventually([&] {
    written += pipe.drain();
    return written.ends_with("burst 999\n");
  }));
  EXPECT_EQ(sink.dropped(), 0u);
}

TEST(LogSink, AReaderThatNeverReadsCostsLinesNotTime) {
  Pipe pipe;
  LogSink sink(pipe.ends[1], 100);
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 100'000; ++i)
    sink.write("[provider] key=k" + std::to_string(i) + " NEW fault=none");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s) << "write() waited on the reader";
  EXPECT_GT(sink.dropped(), 0u);
  const auto stopping = std::chrono::steady_clock::now();
  sink.stop(100ms);  // returns although the pipe is still full
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, 2s);
}

TEST(LogSink, OnceThereIsRoomAgainItSaysHowManyLinesWereDropped) {
  Pipe pipe;
  fcntl(pipe.ends[1], F_SETFL, O_NONBLOCK);
  const std::string filler(4096, 'f');
  while (write(pipe.ends[1], filler.data(), filler.size()) > 0) {
  }  // the pipe is full: nobody reads
  fcntl(pipe.ends[1], F_SETFL, 0);
  LogSink sink(pipe.ends[1], 10);
  for (int i = 0; sink.dropped() == 0; ++i)
    sink.write("line " + std::to_string(i));

  std::string written;
  const auto give_up_at = std::chrono::steady_clock::now() + 5s;
  while (written.find("log lines dropped while standard error was not read") == std::string::npos &&
         std::chrono::steady_clock::now() < give_up_at) {
    written += pipe.drain();  // the reader is back
  }
  EXPECT_NE(written.find("log lines dropped while standard error was not read"), std::string::npos);
}

TEST(LogSink, TheDroppedCountIsWrittenAtStop) {
  Pipe pipe;
  LogSink sink(pipe.ends[1], 1);
  for (int i = 0; i < 100'000 && sink.dropped() == 0; ++i)
    sink.write(std::string(1000, 'x'));
  ASSERT_GT(sink.dropped(), 0u);
  pipe.drain();  // room again
  sink.stop(2s);
  const std::string written = pipe.drain();
  EXPECT_NE(written.find("log lines dropped in all"), std::string::npos) << written.size();
}

}  // namespace
}  // namespace retryproof::provider
