#!/usr/bin/env bash
# A fleet over real processes: the storm set's hundred clients through a 3 s outage
# (scenarios/storm/02-hundred-clients-503.json), each an external Node program
# (examples/node/correct_client.mjs), against the same hundred clients as the reference
# client (this program's own `client`, a C++ process): the baseline from the same run.
# Reports each one's wall time, the run's peak resident set (the retryproof process), the
# peak of the largest client, and the whole fleet's resident set summed at its widest.
# Called by scripts/bench.sh with the release build's retryproof and the project root.
set -euo pipefail
retryproof="$1"
root="$2"
scenario="$root/scenarios/storm/02-hundred-clients-503.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The fleet's resident set, summed over the process and every process below it (retryproof
# and each client), sampled every 100 ms until the run ends; prints the widest sum in MB.
fleet_peak() {  # pid
  local root_pid="$1" peak=0 sum
  while kill -0 "$root_pid" 2>/dev/null; do
    sum=$(ps -e -o pid=,ppid=,rss= | awk -v root="$root_pid" '
      { parent[$1] = $2; rss[$1] = $3 }
      END {
        for (pid in parent) {
          for (p = pid; p != "" && p != 0 && p != 1; p = parent[p]) if (p == root) { s += rss[pid]; break }
        }
        print s + 0
      }')
    [ "$sum" -gt "$peak" ] && peak=$sum
    sleep 0.1
  done
  echo $((peak / 1024))
}

figure() {  # name client
  local name="$1" client="$2" start end pid peak
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$work/$name.rss" "$retryproof" run "$scenario" --client "$client" \
    >"$work/$name.out" 2>&1 &
  pid=$!
  peak=$(fleet_peak "$pid")
  wait "$pid" || true  # a verdict is a figure too, not the bench's failure
  end=$(date +%s.%N)
  awk -v n="$name" -v a="$start" -v b="$end" -v own="$(tail -1 "$work/$name.rss")" -v p="$peak" \
    -v met="$(grep -c '^PASS' "$work/$name.out" || true)" 'BEGIN {
    printf "storm of 100, %-10s %6.1f s   largest process %5.0f MB   fleet at its widest %6.0f MB   %s\n",
      n, b - a, own / 1024, p, (met ? "met" : "NOT met")
  }'
}

echo "== a hundred clients through an outage, over real processes"
figure reference reference
figure node "cmd:node $root/examples/node/correct_client.mjs"
