// The flags that bound the provider's memory, and what each does at its bound
// (docs/provider.md, "Memory"): --max-keys, --journal-limit, --journal-file.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "provider/provider_core.hpp"

namespace retryproof::provider {

struct MemoryOptions {  // as given on the command line; empty when not
  std::string max_keys;
  std::string journal_limit;
  std::string journal_file;
};

void add_memory_options(CLI::App& command, MemoryOptions& options);

// Writes the limits into `config`. Throws std::runtime_error naming the flag whose value is
// wrong, or the pair that does not go together.
void apply_memory_options(const MemoryOptions& options, ProviderConfig& config);

}  // namespace retryproof::provider
