#include "client_under_test/mutant.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace retryproof::client {
namespace {

constexpr std::array<std::pair<Mutant, std::string_view>, 11> kNames{{
    {Mutant::none, "reference"},
    {Mutant::fresh_key_per_attempt, "fresh-key-per-attempt"},
    {Mutant::blind_retry, "blind-retry"},
    {Mutant::no_backoff, "no-backoff"},
    {Mutant::unbounded, "unbounded"},
    {Mutant::payload_drift, "payload-drift"},
    {Mutant::timeout_is_failure, "timeout-is-failure"},
    {Mutant::retries_4xx, "retries-4xx"},
    {Mutant::ignores_retry_after, "ignores-retry-after"},
    {Mutant::memory_only_intent, "memory-only-intent"},
    {Mutant::nested_retry_new_key, "nested-retry-new-key"},
}};

}  // namespace

std::string to_string(Mutant mutant) {
  for (const auto& [known, name] : kNames) {
    if (known == mutant) return std::string(name);
  }
  return "reference";
}

Mutant parse_mutant(std::string_view name) {
  for (const auto& [mutant, known] : kNames) {
    if (known == name && mutant != Mutant::none) return mutant;
  }
  std::string names;
  for (const Mutant mutant : all_mutants())
    names += (names.empty() ? "" : ", ") + to_string(mutant);
  throw std::invalid_argument("unknown mutant \"" + std::string(name) +
                              "\"; known mutants: " + names);
}

const std::vector<Mutant>& all_mutants() {
  static const std::vector<Mutant> mutants = [] {
    std::vector<Mutant> list;
    for (const auto& [mutant, name] : kNames) {
      if (mutant != Mutant::none) list.push_back(mutant);
    }
    return list;
  }();
  return mutants;
}

}  // namespace retryproof::client
