#!/usr/bin/env bash
# Benchmarks on the release build, each reported as a ratio to a baseline measured in
# the same run (machines here are small and noisy: absolute figures drift, ratios less).
#   1. Simulation: three-attempt client runs per second on one core, against bare
#      provider-core creates.
#   2. Load: wrk against the provider (POST new keys, replays, lookups; the provider's p99
#      latency for each), against a bare Boost.Beast
#      server answering a constant (the provider's own library, same thread count) and a
#      bare cpp-httplib one (the library it used before), on loopback; nginx answering a
#      fixed 201 too, when it is installed (the price of HTTP on this machine); and the
#      provider with its per-request log against --log none.
#   3. Compressed time (bench/time_scale.sh): the catalog against the Python example and
#      explore's schedules per minute, at --time-scale 10 against scale 1.
#   4. Memory (bench/memory.sh): bytes per stored key and per journal entry (new keys,
#      replays, lookups of a known key, missed lookups; BENCH_KEYS of each, default
#      1000000), against a std::unordered_map<std::string, std::string> of the same keys,
#      and the resident set after BENCH_KEYS new keys (issue #14: <= 300 MB at 1,000,000).
#   5. Fleets (bench/storm.sh): a hundred external Node clients through an outage, against
#      a hundred reference clients: wall time and memory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" wrk
"$root/scripts/build.sh" release >/dev/null
bin="$root/build/release"
duration="${BENCH_DURATION:-5s}"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

echo "== simulation throughput"
taskset -c 0 "$bin/bench/sim_throughput" "${BENCH_ITERATIONS:-20000}" || true
"$root/bench/sim_fleet.sh" "$bin" "${BENCH_FLEET:-1000}" || true

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "${latency:-}"
}
trap cleanup EXIT
url=""
start() {  # start a server in the background and set $url from its first line
  local out; out="$(mktemp)"
  "$@" >"$out" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
  url="$(head -n 1 "$out")"
  [ -n "$url" ] || { echo "bench: $1 did not start" >&2; exit 1; }
}
start "$bin/scenarios/retryproof" provider --port 0
provider_url="$url"
start "$bin/scenarios/retryproof" provider --port 0 --log none
quiet_url="$url"
start "$bin/bench/bare_beast_server" 0
beast_url="$url"
start "$bin/bench/bare_http_server" 0
httplib_url="$url"

latency="$(mktemp -d)"
requests_per_second() {  # wrk [args] URL -> requests/s; keeps its p99 latency in $latency/last
  wrk -t2 -c32 -d"$duration" --latency "$@" | awk -v keep="$latency/last" '
    /Requests\/sec/ {print $2}
    /^ +99%/ {print $2 > keep}'
}
p99() { cat "$latency/last"; }  # of the last requests_per_second, as wrk prints it: 1.23ms
echo "== load on loopback (wrk -t2 -c32 -d$duration)"
post() { requests_per_second -s "$root/bench/post_replay.lua" "$1/jobs"; }
new_keys() { requests_per_second -s "$root/bench/post_new_keys.lua" "$1/jobs"; }
lookup() { requests_per_second "$1/jobs/by-idempotency-key/bench:order-42"; }
provider_post=$(post "$provider_url"); provider_post_p99=$(p99)
beast_post=$(post "$beast_url")
httplib_post=$(post "$httplib_url")
provider_new=$(new_keys "$provider_url"); provider_new_p99=$(p99)
beast_new=$(new_keys "$beast_url")
httplib_new=$(new_keys "$httplib_url")
provider_get=$(lookup "$provider_url"); provider_get_p99=$(p99)
beast_get=$(lookup "$beast_url")
httplib_get=$(lookup "$httplib_url")
report() {  # name provider beast httplib
  awk -v n="$1" -v p="$2" -v b="$3" -v h="$4" 'BEGIN {
    printf "%-22s provider %8.0f req/s   bare Beast %8.0f (ratio %.2f)   bare cpp-httplib %8.0f (ratio %.2f)\n", n, p, b, p / b, h, p / h
  }'
}
report "POST /jobs (new keys)" "$provider_new" "$beast_new" "$httplib_new"
report "POST /jobs (replay)" "$provider_post" "$beast_post" "$httplib_post"
report "GET lookup by key" "$provider_get" "$beast_get" "$httplib_get"
echo "provider p99 at 32 connections (log on): new keys $provider_new_p99, replays $provider_post_p99, lookups $provider_get_p99 (goal: <= 5 ms)"
quiet_post=$(post "$quiet_url")
awk -v p="$provider_post" -v q="$quiet_post" 'BEGIN {
  printf "%-22s provider %8.0f req/s   --log none %8.0f (ratio %.2f: the cost of the log)\n", "POST, log on vs off", p, q, p / q
}'
if command -v nginx >/dev/null; then
  "$root/bench/nginx_baseline.sh" "$duration" "$root/bench/post_replay.lua" "$provider_post"
else
  echo "nginx is not installed: no nginx baseline in this run"
fi

"$root/bench/time_scale.sh" "$bin/scenarios/retryproof" "$root"

"$root/bench/memory.sh" "$bin" "${BENCH_KEYS:-1000000}"

"$root/bench/storm.sh" "$bin/scenarios/retryproof" "$root"
