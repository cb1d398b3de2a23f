// The flags that bound the provider's memory, and what each does at its bound
// (docs/provider.md, "Memory"): --max-keys, --journal-limit, --journal-file.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>

#include "provider/journal_store.hpp"
#include "provider/provider_core.hpp"

namespace retryproof::provider {

struct MemoryOptions {  // as given on the command line; empty when not
  std::string max_keys;
  std::string journal_limit;
  std::string journal_file;
};

// The limits as the cores take them; empty ones unbounded.
struct MemoryLimits {
  std::optional<std::size_t> max_keys;
  JournalLimits journal;
};

// The same flags for the provider and the proxy, meaning the same there.
void add_memory_options(CLI::App& command, MemoryOptions& options);

// Reads the limits. Throws std::runtime_error naming the flag whose value is wrong, or the
// pair that does not go together.
MemoryLimits read_memory_options(const MemoryOptions& options);
// Writes the limits into `config`, as read_memory_options reads them.
void apply_memory_options(const MemoryOptions& options, ProviderConfig& config);

}  // namespace retryproof::provider
