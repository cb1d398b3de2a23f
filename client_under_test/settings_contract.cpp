#include "client_under_test/settings_contract.hpp"

#include <stdexcept>

namespace retryproof::client {
namespace {

// A whole number from `low` to `high`, or `fallback` when the field is absent.
std::int64_t field(const nlohmann::json& object, const char* name, std::int64_t fallback,
                   std::int64_t low, std::int64_t high) {
  if (!object.contains(name)) return fallback;
  const nlohmann::json& value = object[name];
  if (!value.is_number_integer() || value.get<std::int64_t>() < low ||
      value.get<std::int64_t>() > high) {
    throw std::invalid_argument("RETRYPROOF_CLIENT." + std::string(name) +
                                ": expected a whole number from " + std::to_string(low) + " to " +
                                std::to_string(high));
  }
  return value.get<std::int64_t>();
}

}  // namespace

nlohmann::json settings_to_contract(const ClientSettings& settings, Millis time_limit) {
  return {{"attempts", settings.attempts},
          {"timeoutMs", settings.timeout.count()},
          {"baseDelayMs", settings.base_delay.count()},
          {"maxDelayMs", settings.max_delay.count()},
          {"timeLimitMs", time_limit.count()}};
}

ClientSettings settings_from_contract(const std::string& text, ClientSettings defaults) {
  const auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_object()) {
    throw std::invalid_argument(
        "RETRYPROOF_CLIENT must be a JSON object such as {\"attempts\":3,\"timeoutMs\":1000}");
  }
  constexpr std::int64_t kYear = 366LL * 24 * 3'600'000;
  ClientSettings settings = defaults;
  settings.attempts = static_cast<int>(field(parsed, "attempts", defaults.attempts, 1, 1000));
  settings.timeout = Millis(field(parsed, "timeoutMs", defaults.timeout.count(), 1, kYear));
  settings.base_delay = Millis(field(parsed, "baseDelayMs", defaults.base_delay.count(), 2, kYear));
  settings.max_delay = Millis(field(parsed, "maxDelayMs", defaults.max_delay.count(), 2, kYear));
  return settings;
}

}  // namespace retryproof::client
