#include "scenarios/commands/progress.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <sstream>
#include <thread>
#include <vector>

namespace retryproof::scenarios {
namespace {

using Mode = ProgressPrinter::Mode;

TEST(ProgressPrinter, IsLiveOnATerminalOnly) {
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  EXPECT_EQ(ProgressPrinter::mode_for(pipe_ends[1]), Mode::lines);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
  const int terminal = posix_openpt(O_RDWR | O_NOCTTY);  // a pseudo-terminal, as a user's
  ASSERT_GE(terminal, 0);
  EXPECT_EQ(ProgressPrinter::mode_for(terminal), Mode::live);
  close(terminal);
}

TEST(ProgressPrinter, OffATerminalPrintsOneLinePerItemWithItsCountAndNoRedrawing) {
  std::ostringstream out;
  {
    ProgressPrinter progress(out, Mode::lines, 3);
    progress.finished("PASS", "commit-then-drop");
    progress.finished("FAIL (harm)", "no-dedup-commit-then-drop");
    progress.status("shrinking: 4 tried");
    progress.finished("PASS", "rate-limited");
  }
  EXPECT_EQ(out.str(),
            "[1/3] PASS commit-then-drop\n"
            "[2/3] FAIL (harm) no-dedup-commit-then-drop\n"
            "shrinking: 4 tried\n"
            "[3/3] PASS rate-limited\n");
}

TEST(ProgressPrinter, OnATerminalRedrawsTheCountInPlaceBelowTheFinishedLines) {
  std::ostringstream out;
  {
    ProgressPrinter progress(out, Mode::live, 2);
    progress.finished("PASS", "a");
    progress.status("shrinking: 1 tried");
    progress.finished("PASS", "b");
  }
  EXPECT_EQ(out.str(),
            "\r\x1b[K[0/2] running..."
            "\r\x1b[K[1/2] PASS a\n\r\x1b[K[1/2] running..."
            "\r\x1b[Kshrinking: 1 tried"
            "\r\x1b[K[2/2] PASS b\n");  // the last item leaves no status line to clear
}

TEST(ProgressPrinter, OnATerminalClearsAStatusLineLeftWhenItEnds) {
  std::ostringstream out;
  {
    ProgressPrinter progress(out, Mode::live, 5);
    progress.finished("PASS", "a");
  }
  EXPECT_TRUE(out.str().ends_with("[1/5] running...\r\x1b[K")) << out.str();
}

TEST(ProgressPrinter, LinesFromManyThreadsStayWholeAndTheCountReachesTheTotal) {
  std::ostringstream out;
  constexpr int kThreads = 4;
  constexpr int kEach = 25;
  {
    ProgressPrinter progress(out, Mode::lines, kThreads * kEach);
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&progress] {
        for (int i = 0; i < kEach; ++i)
          progress.finished("PASS", "scenario");
      });
    }
  }
  std::istringstream lines(out.str());
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_EQ(line, "[" + std::to_string(count) + "/100] PASS scenario");
  }
  EXPECT_EQ(count, kThreads * kEach);
}

}  // namespace
}  // namespace retryproof::scenarios
