#include "common/duration.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace retryproof {
namespace {

// Largest first, so format_duration picks the largest unit that divides exactly.
constexpr std::array<std::pair<std::string_view, std::int64_t>, 4> kUnits{{
    {"h", 3'600'000},
    {"m", 60'000},
    {"s", 1'000},
    {"ms", 1},
}};

}  // namespace

Millis parse_duration(std::string_view text) {
  std::int64_t amount = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
  const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  if (error == std::errc{} && end != text.data() && amount >= 0) {
    for (const auto& [name, millis] : kUnits) {
      // Bounded so that no arithmetic on it can overflow: a year is plenty.
      if (unit == name && amount <= 366LL * 24 * 3'600'000 / millis) return Millis(amount * millis);
    }
  }
  throw std::invalid_argument("bad duration \"" + std::string(text) +
                              "\": write a whole number and a unit (ms, s, m or h), such as "
                              "250ms, 3s, 2m or 25h, up to a year");
}

std::string format_duration(Millis duration) {
  for (const auto& [name, millis] : kUnits) {
    if (duration.count() % millis == 0 && duration.count() != 0) {
      return std::to_string(duration.count() / millis) + std::string(name);
    }
  }
  return "0ms";
}

}  // namespace retryproof
