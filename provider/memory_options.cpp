#include "provider/memory_options.hpp"

#include <charconv>
#include <cstdint>
#include <fstream>
#include <stdexcept>

namespace retryproof::provider {
namespace {

// A count flag: a whole number from 1, in decimal digits only (no sign, no suffix).
std::size_t positive_count(const std::string& flag, const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, problem] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || problem != std::errc() || end != text.data() + text.size() || value == 0) {
    throw std::runtime_error(flag + " " + text + ": expected a whole number from 1");
  }
  return static_cast<std::size_t>(value);
}

}  // namespace

void add_memory_options(CLI::App& command, MemoryOptions& options) {
  command.add_option(
      "--max-keys", options.max_keys,
      "Hold at most N jobs (each with its idempotency key; held requests count). A new "
      "operation past it gets 507 capacity_exhausted, after the jobs of keys older than "
      "--key-ttl are freed to make room; replays, lookups and /_test/ keep working. "
      "Default: unbounded");
  command.add_option(
      "--journal-limit", options.journal_limit,
      "Hold at most N journal entries in memory; past it the oldest half moves out: to "
      "--journal-file when given (reads still return them), else dropped and counted in "
      "GET /_test/journal's \"dropped\". Default: unbounded");
  command.add_option("--journal-file", options.journal_file,
                     "With --journal-limit: the JSON Lines file (one entry a line, created "
                     "afresh, emptied by a reset) the oldest entries spill to, nothing lost");
}

MemoryLimits read_memory_options(const MemoryOptions& options) {
  MemoryLimits limits;
  if (!options.max_keys.empty()) limits.max_keys = positive_count("--max-keys", options.max_keys);
  if (!options.journal_limit.empty()) {
    limits.journal.in_memory = positive_count("--journal-limit", options.journal_limit);
  }
  if (!options.journal_file.empty()) {
    if (!limits.journal.in_memory) {
      throw std::runtime_error("--journal-file " + options.journal_file +
                               ": needs --journal-limit, the entries held before spilling");
    }
    // Said now, as a usage error, rather than when the server starts.
    if (!std::ofstream(options.journal_file, std::ios::app)) {
      throw std::runtime_error("--journal-file " + options.journal_file + ": cannot be written");
    }
    limits.journal.spill_file = options.journal_file;
  }
  return limits;
}

void apply_memory_options(const MemoryOptions& options, ProviderConfig& config) {
  MemoryLimits limits = read_memory_options(options);
  config.max_keys = limits.max_keys;
  config.journal = std::move(limits.journal);
}

}  // namespace retryproof::provider
