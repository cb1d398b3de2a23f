// Explore's seed space. Each schedule explore tries has a seed, and everything about it
// derives from that seed alone: the schedule, the provider's job ids, the client's
// jitter. So a counterexample replays from its seed (`explore --seed S --runs 1`), and N
// jobs of a CI matrix (`--shard K/N`) split the space without talking to each other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "scenarios/model/schedule.hpp"

namespace retryproof::scenarios {

// Shard K of N (K from 1) tries the K-th, (K+N)-th, (K+2N)-th ... seeds from the base
// seed: N shards of R runs try exactly the N×R seeds one unsharded explore of N×R runs
// tries, each once.
struct Shard {
  int index = 1;
  int count = 1;

  // The seed of the shard's run-th schedule (from 0), counted from `base`.
  std::uint64_t schedule_seed(std::uint64_t base, int run) const {
    return base + static_cast<std::uint64_t>(index - 1) +
           static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(run);
  }
  std::string describe() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "K/N", 1 <= K <= N. Throws std::invalid_argument saying what is expected.
Shard parse_shard(std::string_view text);

// The schedule a seed stands for.
Schedule schedule_of_seed(std::uint64_t seed, FaultMenu menu, Settings settings);

}  // namespace retryproof::scenarios
