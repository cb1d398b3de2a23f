#!/usr/bin/env bash
# A fleet of simulated reference clients (default 1,000) through a fault every one of them
# meets, against the same invocations run one after another: wall time and peak memory of
# each (GNU time's "Maximum resident set size"), each in a process of its own.
#   bench/sim_fleet.sh BIN_DIR [CLIENTS]     (scripts/bench.sh runs it)
set -euo pipefail
bin="$1"
n="${2:-1000}"
echo "== a fleet of $n simulated clients (bench/sim_fleet)"
for mode in fleet sequential; do
  report="$(mktemp)"
  /usr/bin/time -v "$bin/bench/sim_fleet" "$n" "$mode" 2>"$report" | sed 's/^/  /'
  awk -F': ' '/Elapsed \(wall clock\)/ {wall = $2} /Maximum resident set size/ {rss = $2}
    END {printf "  %s process: %s wall, %.1f MiB peak resident\n", "'"$mode"'", wall, rss / 1024}' "$report"
  rm -f "$report"
done
