#!/usr/bin/env bash
# Before and after on a noisy machine: runs scripts/bench.sh's three loads (replays, new
# keys, lookups; wrk -t2 -c32 --latency) against two provider programs in alternating
# rounds, each provider fresh per round (log on, to /dev/null as in bench.sh) and the bare
# Beast server measured right beside it. Prints requests/s, the ratio to bare Beast, p99,
# and the CPU the server spent per request (from /proc: less sensitive to the machine's
# load than requests/s).
#   bench/alternate_load.sh OLD_RETRYPROOF NEW_RETRYPROOF [ROUNDS] [BARE_BEAST_SERVER]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
old="$1"
new="$2"
rounds="${3:-2}"
bare="${4:-$root/build/release/bench/bare_beast_server}"
duration="${BENCH_DURATION:-5s}"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
url="" pid=""
start() {  # start a server in the background; sets $url (its first line) and $pid
  local out; out="$(mktemp)"
  "$@" >"$out" 2>/dev/null &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
  url="$(head -n 1 "$out")"
  rm -f "$out"
  [ -n "$url" ] || { echo "alternate_load: $1 did not start" >&2; exit 1; }
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # user + system, in 1/100 s
# load URL PID NAME -> "requests/s p99 cpu-us-per-request"
load() {
  local args
  case "$3" in
    replay) args=(-s "$root/bench/post_replay.lua" "$1/jobs") ;;
    new) args=(-s "$root/bench/post_new_keys.lua" "$1/jobs") ;;
    lookup) args=("$1/jobs/by-idempotency-key/bench:order-42") ;;
  esac
  local before after
  before=$(cpu_ticks "$2")
  local report; report="$(wrk -t2 -c32 -d"$duration" --latency "${args[@]}")"
  after=$(cpu_ticks "$2")
  awk -v ticks=$((after - before)) '/ requests in / {n = $1} /Requests\/sec/ {r = $2}
    /^ +99%/ {p = $2} END {printf "%.0f %s %.1f\n", r, p, ticks * 10000 / n}' <<<"$report"
}

start "$bare" 0
bare_url="$url" bare_pid="$pid"
for round in $(seq "$rounds"); do
  for which in old new; do
    program="$old"; [ "$which" = new ] && program="$new"
    start "$program" provider --port 0
    echo "round $round, $which ($program): load average $(cut -d' ' -f1-3 /proc/loadavg)"
    for name in replay new lookup; do  # bench.sh's order: the lookup finds the replayed key
      read -r rps p99 cpu <<<"$(load "$url" "$pid" "$name")"
      read -r bare_rps bare_p99 bare_cpu <<<"$(load "$bare_url" "$bare_pid" "$name")"
      awk -v n="$name" -v r="$rps" -v p="$p99" -v c="$cpu" -v br="$bare_rps" -v bp="$bare_p99" \
        -v bc="$bare_cpu" 'BEGIN {
        printf "  %-7s provider %7.0f req/s  p99 %-8s %5.1f us CPU/req   bare Beast %7.0f  p99 %-8s %5.1f us   ratio %.2f\n",
          n, r, p, c, br, bp, bc, r / br }'
    done
    kill "$pid"
  done
done
