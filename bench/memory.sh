#!/usr/bin/env bash
# Memory per key and per journal entry (issue #14), each figure beside a yardstick measured
# in the same run: a std::unordered_map<std::string, std::string> of the same keys, each
# mapped to its job's JSON, the least a key-to-job store can hold. Each measurement is its
# own process (bench/memory_per_key), its resident set read before the first request and
# after the last; the process's own RSS before any key is printed too.
#   bench/memory.sh BIN_DIR [REQUESTS]     (scripts/bench.sh runs it; BENCH_KEYS=N)
set -euo pipefail
bin="$1"
n="${2:-1000000}"
file="$(mktemp)"
trap 'rm -f "$file"' EXIT
measure() { "$bin/bench/memory_per_key" "$@"; }

echo "== memory per key and per journal entry ($n requests a measurement, bench/memory_per_key)"
read -r _ _ start yard_after <<<"$(measure yardstick "$n")"
yard=$((yard_after - start))
awk -v s="$start" -v y="$yard" -v n="$n" 'BEGIN {
  printf "%-36s %8.1f MiB before any key; the yardstick (unordered_map<string,string>, key -> job JSON) grows %.1f MiB, %.0f bytes a key\n", "process", s / 1024, y / 1024, y * 1024 / n
}'
row() {  # label mode [file]
  local label="$1"
  shift
  read -r _ _ before after <<<"$(measure "$1" "$n" "${@:2}")"
  last_after="$after"
  awk -v l="$label" -v b="$before" -v a="$after" -v y="$yard" -v n="$n" 'BEGIN {
    printf "%-36s %8.1f MiB, %5.0f bytes each   (yardstick %.0f bytes a key: ratio %.2f)\n", l, (a - b) / 1024, (a - b) * 1024 / n, y * 1024 / n, (a - b) / y
  }'
}
row "new keys (store and journal)" keys
awk -v a="$last_after" -v n="$n" 'BEGIN {
  printf "%-36s %8.1f MB resident after %d new keys, the process included (goal: <= 300 MB at 1,000,000)\n", "", a * 1024 / 1e6, n
}'
row "new keys, journal spilled to a file" spilled "$file"
row "replays (a journal entry each)" replays
row "lookups of a known key (an entry)" lookups
row "missed lookups (entry and key)" misses
echo "goal: <= 64 bytes a replay or a lookup of a known key"
