// Memory per key and per journal entry (issue #14): the growth of this process's resident
// set while the provider core takes N requests of one kind, printed as
// "<mode> <N> <RSS KiB before> <RSS KiB after>" for scripts/bench.sh to divide. One mode a
// process, so that no measurement inherits another's heap. Modes:
//   yardstick  the same N keys in a std::unordered_map<std::string, std::string>, each
//              mapped to its job's JSON: the least a key-to-job store can hold
//   keys       N creates with new keys: a job stored and a journal entry each
//   spilled    the same, with --journal-limit 10000 and a --journal-file: the store alone
//   replays    N replays of one key: a journal entry each
//   lookups    N lookups of one stored key: a journal entry each
//   misses     N lookups of N keys never stored: a journal entry each, and its key held
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unordered_map>

#include "provider/provider_core.hpp"

namespace {

using namespace retryproof;

long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

std::string key_of(long i) {
  return "bench:key-" + std::to_string(10'000'000 + i);
}
std::string body_of(long i) {
  return R"({"orderId":"order-)" + std::to_string(i) + R"(","amount":120})";
}

provider::HttpRequest create(long i) {
  return {"POST", "/jobs", {{"Idempotency-Key", key_of(i)}}, body_of(i)};
}

void report(const char* mode, long n, long before) {
  std::printf("%s %ld %ld %ld\n", mode, n, before, rss_kib());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: memory_per_key yardstick|keys|spilled|replays|lookups|misses N [FILE]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const long n = std::strtol(argv[2], nullptr, 10);
  if (mode == "yardstick") {
    const long before = rss_kib();
    std::unordered_map<std::string, std::string> jobs;
    for (long i = 0; i < n; ++i) {
      jobs.emplace(key_of(i),
                   R"({"id":"job_0123abcd","orderId":"order-)" + std::to_string(i) + "\"}");
    }
    report("yardstick", n, before);
    return jobs.size() == static_cast<std::size_t>(n) ? 0 : 1;
  }
  provider::ProviderConfig config;
  if (mode == "spilled") {
    if (argc < 4) return 2;
    config.journal = {.in_memory = 10'000, .spill_file = argv[3]};
  }
  provider::ProviderCore core(std::move(config));
  if (mode == "replays" || mode == "lookups") core.handle(create(0), Millis(0));
  const long before = rss_kib();
  for (long i = 0; i < n; ++i) {
    if (mode == "keys" || mode == "spilled") {
      core.handle(create(i), Millis(0));
    } else if (mode == "replays") {
      core.handle(create(0), Millis(0));
    } else if (mode == "lookups" || mode == "misses") {
      const std::string key = key_of(mode == "lookups" ? 0 : i);
      core.handle({"GET", "/jobs/by-idempotency-key/" + key, {}, {}}, Millis(0));
    } else {
      std::fprintf(stderr, "memory_per_key: unknown mode %s\n", mode.c_str());
      return 2;
    }
  }
  report(mode.c_str(), n, before);
  return 0;
}
