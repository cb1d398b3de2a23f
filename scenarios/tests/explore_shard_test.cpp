// `retryproof explore --shard K/N` as a CI matrix job runs it: a bad shard is a usage error,
// and a counterexample one shard finds replays from its seed alone, without the shard.
#include <gtest/gtest.h>

#include <string>

#include "scenarios/process/child_process.hpp"
#include "scenarios/tests/catalog_runs.hpp"

namespace retryproof::scenarios {
namespace {

using catalog_runs::kBinary;
using std::chrono::minutes;

struct Finished {
  int code = -1;
  std::string out;
  std::string err;
};

Finished run_to_end(const std::vector<std::string>& argv) {
  ChildProcess child(argv);
  const auto status = child.wait(minutes(5));
  return {status ? status->code : -1, child.standard_output(), child.standard_error()};
}

// What follows `marker` up to the end of its line.
std::string rest_of_line(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  if (at == std::string::npos) return {};
  const auto start = at + marker.size();
  return text.substr(start, text.find('\n', start) - start);
}

// The schedule printed after "exposes a violation:", up to the blank line that ends it.
std::string first_schedule(const std::string& out) {
  const auto at = out.find("exposes a violation:\n");
  if (at == std::string::npos) return {};
  const auto start = out.find('\n', at) + 1;
  return out.substr(start, out.find("\n\n", start) - start);
}

TEST(ExploreShard, AShardThatDoesNotExistIsAUsageError) {
  const Finished run = run_to_end({kBinary, "explore", "--shard", "3/2", "--runs", "1"});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("--shard 3/2: shard 3 of 2 does not exist; K runs from 1 to 2"),
            std::string::npos)
      << run.err;
  const Finished malformed = run_to_end({kBinary, "explore", "--shard", "2", "--runs", "1"});
  EXPECT_EQ(malformed.code, 2);
  EXPECT_NE(malformed.err.find("write K/N"), std::string::npos) << malformed.err;
}

TEST(ExploreShard, ACounterexampleReplaysFromItsSeedAlone) {
  const std::string save = ::testing::TempDir() + "explore-shard-counterexample.json";
  const Finished sharded =
      run_to_end({kBinary, "explore", "--client", "mutant:blind-retry", "--seed", "3", "--runs",
                  "20", "--shard", "2/3", "--time-scale", "10", "--save", save});
  ASSERT_EQ(sharded.code, 1) << sharded.out << sharded.err;
  EXPECT_NE(sharded.out.find("shard 2/3"), std::string::npos) << sharded.out;
  const std::string found = rest_of_line(sharded.out, " (seed ");  // "17) exposes ..."
  const std::string seed = found.substr(0, found.find(')'));
  ASSERT_FALSE(seed.empty()) << sharded.out;
  const std::string replay =
      rest_of_line(sharded.out, "explore it again from its seed alone:\n  retryproof explore ");
  EXPECT_EQ(replay, "--client mutant:blind-retry --seed " + seed + " --runs 1 --time-scale 10")
      << sharded.out;

  // Its seed, on its own, is the same schedule, and the same violation, at once.
  const Finished again = run_to_end({kBinary, "explore", "--client", "mutant:blind-retry", "--seed",
                                     seed, "--runs", "1", "--time-scale", "10", "--save", save});
  EXPECT_EQ(again.code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("schedule 1 (seed " + seed + ")"), std::string::npos) << again.out;
  EXPECT_EQ(first_schedule(again.out), first_schedule(sharded.out)) << again.out;
  EXPECT_FALSE(first_schedule(again.out).empty()) << again.out;
}

}  // namespace
}  // namespace retryproof::scenarios
