#include "fault.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace retryproof::provider {
namespace {

constexpr std::array<std::pair<FaultKind, std::string_view>, 4> kCatalogue{{
    {FaultKind::none, "none"},
    {FaultKind::fail_before_commit, "fail-before-commit"},
    {FaultKind::commit_then_error, "commit-then-error"},
    {FaultKind::commit_then_drop, "commit-then-drop"},
}};

std::string catalogue_names() {
  std::string names;
  for (const auto& [kind, name] : kCatalogue) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

}  // namespace

std::string to_string(const Fault& fault) {
  for (const auto& [kind, name] : kCatalogue) {
    if (kind == fault.kind) return std::string(name);
  }
  return "unknown";
}

Fault parse_fault(std::string_view text) {
  for (const auto& [kind, name] : kCatalogue) {
    if (name == text) return Fault{kind};
  }
  throw std::invalid_argument("unknown fault \"" + std::string(text) +
                              "\"; known faults: " + catalogue_names());
}

}  // namespace retryproof::provider
