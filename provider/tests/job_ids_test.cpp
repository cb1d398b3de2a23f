// Job ids: "job_" and 8 lower-case hex digits, a pure function of the seed, never repeated.
#include "provider/job_ids.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <regex>
#include <string>
#include <unordered_set>
#include <vector>

namespace retryproof::provider {
namespace {

std::vector<std::string> take_ids(JobIdGenerator& generator, std::size_t count) {
  std::vector<std::string> ids;
  ids.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    ids.push_back(generator.next());
  return ids;
}

TEST(JobIdGenerator, FormatIsJobAndEightLowerCaseHexDigits) {
  const std::regex format("^job_[0-9a-f]{8}$");
  for (const std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xffffffffffffffffULL}) {
    JobIdGenerator generator(seed);
    for (const auto& id : take_ids(generator, 1000)) {
      EXPECT_TRUE(std::regex_match(id, format)) << "seed " << seed << " gave " << id;
    }
  }
}

TEST(JobIdGenerator, IsSplitMix64HighBitsSoEveryPlatformAgrees) {
  // SplitMix64 with seed 0 yields e220a8397b1dcdaf, 6e789e6aa1b965f4, 06c45d188009454f.
  JobIdGenerator generator(0);
  EXPECT_EQ(take_ids(generator, 3),
            (std::vector<std::string>{"job_e220a839", "job_6e789e6a", "job_06c45d18"}));
}

TEST(JobIdGenerator, SameSeedGivesSameSequence) {
  JobIdGenerator first(12345);
  JobIdGenerator second(12345);
  EXPECT_EQ(take_ids(first, 500), take_ids(second, 500));
}

TEST(JobIdGenerator, DifferentSeedsGiveDifferentSequences) {
  JobIdGenerator first(1);
  JobIdGenerator second(2);
  const auto a = take_ids(first, 100);
  const auto b = take_ids(second, 100);
  EXPECT_NE(a, b);
  EXPECT_NE(a.front(), b.front());
}

TEST(JobIdGenerator, NeverRepeatsAnIdFromOneGenerator) {
  // 200000 draws of 32 bits would collide by the birthday bound; the generator must skip.
  constexpr std::size_t kCount = 200000;
  JobIdGenerator generator(7);
  std::unordered_set<std::string> seen;
  seen.reserve(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    const std::string id = generator.next();
    ASSERT_TRUE(seen.insert(id).second) << "id " << id << " repeated at draw " << i;
  }
  EXPECT_EQ(seen.size(), kCount);
}

// Stores hold an id as its 32-bit value and write it back on output: only an id of exactly
// the written form may be held so, or the output would change.
TEST(JobIdText, AnIdIsHeldAsItsValueOnlyInExactlyTheFormItIsWritten) {
  for (const std::uint32_t value : {0U, 0xc0ffeeU, 0xffffffffU}) {
    const std::string id = job_id_text("pi_", value);
    EXPECT_EQ(job_id_value(id, "pi_"), value) << id;
  }
  EXPECT_EQ(job_id_text("job_", 0xc0ffee), "job_00c0ffee");
  for (const char* other : {"job_00C0FFEE", "job_c0ffee", "job_00c0ffee0", "pi_00c0ffee",
                            "job_00c0ffeg", "job_-0c0ffee", ""}) {
    EXPECT_FALSE(job_id_value(other, "job_")) << other;
  }
}

}  // namespace
}  // namespace retryproof::provider
