#include "provider/fault.hpp"

#include <array>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "common/duration.hpp"

namespace retryproof::provider {
namespace {

enum class Parameter { none, duration, seconds };

struct Entry {
  FaultKind kind;
  std::string_view name;
  Parameter parameter;
};

constexpr std::array<Entry, 12> kCatalogue{{
    {FaultKind::none, "none", Parameter::none},
    {FaultKind::fail_before_commit, "fail-before-commit", Parameter::none},
    {FaultKind::commit_then_error, "commit-then-error", Parameter::none},
    {FaultKind::commit_then_drop, "commit-then-drop", Parameter::none},
    {FaultKind::commit_then_reset, "commit-then-reset", Parameter::none},
    {FaultKind::drop_before_commit, "drop-before-commit", Parameter::none},
    {FaultKind::commit_then_delay, "commit-then-delay", Parameter::duration},
    {FaultKind::delay_before_commit, "delay-before-commit", Parameter::duration},
    {FaultKind::rate_limited, "rate-limited", Parameter::seconds},
    {FaultKind::commit_then_truncate, "commit-then-truncate", Parameter::none},
    {FaultKind::commit_then_500, "commit-then-500", Parameter::none},
    {FaultKind::lookup_unavailable, "lookup-unavailable", Parameter::none},
}};

std::string catalogue_names() {
  std::string names;
  for (const auto& entry : kCatalogue) {
    if (!names.empty()) names += ", ";
    names += entry.name;
    if (entry.parameter == Parameter::duration) names += ":<duration>";
    if (entry.parameter == Parameter::seconds) names += "[:<seconds>]";
  }
  return names;
}

int parse_seconds(std::string_view text, std::string_view fault) {
  int seconds = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc{} || end != text.data() + text.size() || seconds < 0 || seconds > 86400) {
    throw std::invalid_argument("\"" + std::string(fault) +
                                "\": Retry-After is a whole number of seconds from 0 to 86400");
  }
  return seconds;
}

}  // namespace

std::string to_string(const Fault& fault) {
  for (const auto& entry : kCatalogue) {
    if (entry.kind != fault.kind) continue;
    std::string name(entry.name);
    if (entry.parameter == Parameter::duration) name += ":" + format_duration(fault.duration);
    if (entry.parameter == Parameter::seconds && fault.retry_after_seconds != 1) {
      name += ":" + std::to_string(fault.retry_after_seconds);
    }
    return name;
  }
  return "unknown";
}

Fault parse_fault(std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  for (const auto& entry : kCatalogue) {
    if (entry.name != name) continue;
    Fault fault{entry.kind};
    const bool has_argument = colon != std::string_view::npos;
    const std::string_view argument = has_argument ? text.substr(colon + 1) : std::string_view{};
    switch (entry.parameter) {
      case Parameter::none:
        if (has_argument) {
          throw std::invalid_argument("\"" + std::string(text) + "\": " + std::string(name) +
                                      " takes no parameter");
        }
        break;
      case Parameter::duration:
        if (!has_argument) {
          throw std::invalid_argument("\"" + std::string(text) + "\" needs a duration, such as " +
                                      std::string(name) + ":2s");
        }
        try {
          fault.duration = parse_duration(argument);
        } catch (const std::invalid_argument& error) {
          throw std::invalid_argument("\"" + std::string(text) + "\": " + error.what());
        }
        break;
      case Parameter::seconds:
        if (has_argument) fault.retry_after_seconds = parse_seconds(argument, text);
        break;
    }
    return fault;
  }
  throw std::invalid_argument("unknown fault \"" + std::string(text) +
                              "\"; known faults: " + catalogue_names());
}

}  // namespace retryproof::provider
