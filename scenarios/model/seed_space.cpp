#include "scenarios/model/seed_space.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>

namespace retryproof::scenarios {
namespace {

constexpr int kMaxShards = 100000;

// A whole number from 1 to kMaxShards, all of `text`; nothing otherwise.
std::optional<int> count_in(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 1 || value > kMaxShards)
    return std::nullopt;
  return value;
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto index = count_in(text.substr(0, slash));
  const auto count =
      slash == std::string_view::npos ? std::nullopt : count_in(text.substr(slash + 1));
  if (!index || !count) {
    throw std::invalid_argument("--shard " + std::string(text) +
                                ": write K/N, this job's shard K of N, such as 1/4 (whole "
                                "numbers, 1 <= K <= N <= " +
                                std::to_string(kMaxShards) + ")");
  }
  if (*index > *count) {
    throw std::invalid_argument("--shard " + std::string(text) + ": shard " +
                                std::to_string(*index) + " of " + std::to_string(*count) +
                                " does not exist; K runs from 1 to " + std::to_string(*count));
  }
  return {*index, *count};
}

Schedule schedule_of_seed(std::uint64_t seed, FaultMenu menu, Settings settings) {
  SplitMix64 random(seed);
  return random_schedule(random, menu, settings);
}

}  // namespace retryproof::scenarios
