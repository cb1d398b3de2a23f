#!/usr/bin/env bash
# A fleet over real processes: the storm set's hundred clients through a 3 s outage
# (scenarios/storm/02-hundred-clients-503.json), each an external Node program
# (examples/node/correct_client.mjs), against the same hundred clients as the reference
# client (this program's own `client`, a C++ process): the baseline from the same run.
# Reports each one's wall time, the run's peak resident set (the retryproof process), the
# peak of the largest client, and the whole fleet's resident set summed at its widest.
# Then what the process world pays per client (issue #25 item 5): the clients' CPU (GNU
# time's user+system of the run, which counts every client it waited for, less the
# retryproof process's own from /proc/PID/stat) and retryproof's own, each over the
# hundred; the resident and proportional sets per client alive at the fleet's widest (a
# `cmd:` client is a `sh -c` and its program: both are counted, the program once); and
# each client's start, from its spawn to its first request reaching the provider
# (bench/fleet_starts.py).
# Called by scripts/bench.sh with the release build's retryproof and the project root.
set -euo pipefail
retryproof="$1"
root="$2"
scenario="$root/scenarios/storm/02-hundred-clients-503.json"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The fleet's resident set, summed over the process and every process below it (GNU time,
# retryproof under it, and each client), sampled every 100 ms until the run ends. A
# client's RSS counts the pages it shares with the others (its program's text, libraries)
# in full, so each second the clients' proportional set (Pss, /proc/PID/smaps_rollup) is
# summed too: what the clients add between them. Reading it walks each client's page
# tables, hence once a second, not every sample. Prints the widest RSS sum (KiB), the
# clients alive then and their part of it (KiB); the widest Pss sum of the clients (KiB)
# and the clients alive then; and retryproof's own CPU at the last sample (clock ticks:
# utime + stime, /proc/PID/stat fields 14 and 15).
fleet_peak() {  # pid of GNU time
  local root_pid="$1" peak=0 clients=0 theirs=0 pss_peak=0 pss_clients=0 own=0 tick=0
  local sum alive below world pss
  while kill -0 "$root_pid" 2>/dev/null; do
    read -r sum alive below world pss <<<"$(ps -e -o pid=,ppid=,rss=,comm= |
      awk -v root="$root_pid" -v with_pss=$((tick % 10 == 0)) '
      { parent[$1] = $2; rss[$1] = $3; name[$1] = $4 }
      END {
        for (pid in parent) {
          if (pid == root) { s += rss[pid]; continue }
          if (parent[pid] == root) { s += rss[pid]; world = pid; continue }
          for (p = parent[pid]; p != "" && p != 0 && p != 1; p = parent[p]) if (p == root) {
            s += rss[pid]; below += rss[pid]; if (name[pid] != "sh") ++n
            if (with_pss) {
              file = "/proc/" pid "/smaps_rollup"
              while ((getline line < file) > 0) if (line ~ /^Pss:/) { split(line, f); pss += f[2] }
              close(file)
            }
            break
          }
        }
        print s + 0, n + 0, below + 0, world + 0, (with_pss ? pss + 0 : -1)
      }')"
    [ "$sum" -gt "$peak" ] && { peak=$sum; clients=$alive; theirs=$below; }
    [ "$pss" -gt "$pss_peak" ] && { pss_peak=$pss; pss_clients=$alive; }
    [ "$world" -gt 0 ] && own=$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$world/stat" 2>/dev/null || echo "$own")
    tick=$((tick + 1))
    sleep 0.1
  done
  echo "$peak $clients $theirs $pss_peak $pss_clients $own"
}

declare -A per_client  # name -> "cpu_s resident_mb start_median_ms", for the comparison
figure() {  # name client
  local name="$1" client="$2" start end pid peak alive theirs pss pss_alive own largest user
  local system starts clients=100 tck cpu_s own_s mb pss_mb median
  start=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$work/$name.time" "$retryproof" run "$scenario" \
    --client "$client" --json "$work/$name.json" >"$work/$name.out" 2>&1 &
  pid=$!
  read -r peak alive theirs pss pss_alive own <<<"$(fleet_peak "$pid")"
  wait "$pid" || true  # a verdict is a figure too, not the bench's failure
  end=$(date +%s.%N)
  read -r largest user system <<<"$(tail -1 "$work/$name.time")"
  awk -v n="$name" -v a="$start" -v b="$end" -v own="$largest" -v p="$peak" \
    -v met="$(grep -c '^PASS' "$work/$name.out" || true)" 'BEGIN {
    printf "storm of 100, %-10s %6.1f s   largest process %5.0f MB   fleet at its widest %6.0f MB   %s\n",
      n, b - a, own / 1024, p / 1024, (met ? "met" : "NOT met")
  }'
  tck=$(getconf CLK_TCK)
  cpu_s=$(awk -v u="$user" -v s="$system" -v own="$own" -v t="$tck" -v c="$clients" \
    'BEGIN {printf "%.3f", (u + s - own / t) / c}')
  own_s=$(awk -v own="$own" -v t="$tck" -v c="$clients" 'BEGIN {printf "%.3f", own / t / c}')
  mb=$(awk -v b="$theirs" -v n="$alive" 'BEGIN {printf "%.1f", n ? b / n / 1024 : 0}')
  pss_mb=$(awk -v b="$pss" -v n="$pss_alive" 'BEGIN {printf "%.1f", n ? b / n / 1024 : 0}')
  starts="$(python3 "$root/bench/fleet_starts.py" "$work/$name.json" 2>/dev/null || echo "start -")"
  median=$(sed -n 's/^start median \([0-9.]*\) ms.*/\1/p' <<<"$starts")
  echo "  per client: CPU $cpu_s s (retryproof's own: $own_s s a client), resident $mb MB ($alive alive at the widest), proportional $pss_mb MB ($pss_alive alive at its widest), $starts"
  per_client[$name]="$cpu_s $pss_mb ${median:-0}"
}

echo "== a hundred clients through an outage, over real processes"
figure reference reference
figure node "cmd:node $root/examples/node/correct_client.mjs"
read -r ref_cpu ref_mb ref_start <<<"${per_client[reference]}"
read -r node_cpu node_mb node_start <<<"${per_client[node]}"
awk -v c="$node_cpu" -v C="$ref_cpu" -v m="$node_mb" -v M="$ref_mb" -v s="$node_start" -v S="$ref_start" '
  function ratio(x, y) { return y > 0 ? sprintf("%.1f", x / y) : "-" }
  BEGIN {
    printf "per client, Node against the reference client: CPU %s times, proportional set %s times, start (median) %s times\n",
      ratio(c, C), ratio(m, M), ratio(s, S)
  }'
