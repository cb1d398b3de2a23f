#!/usr/bin/env bash
# Benchmarks on the release build, each reported as a ratio to a baseline measured in
# the same run (machines here are small and noisy: absolute figures drift, ratios less).
#   1. Simulation: three-attempt client runs per second on one core, against bare
#      provider-core creates.
#   2. Load: wrk against the provider (POST replays, lookups), against a bare Boost.Beast
#      server answering a constant (the provider's own library, same thread count) and a
#      bare cpp-httplib one (the library it used before), on loopback.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" wrk
"$root/scripts/build.sh" release >/dev/null
bin="$root/build/release"
duration="${BENCH_DURATION:-5s}"

echo "== simulation throughput"
taskset -c 0 "$bin/bench/sim_throughput" "${BENCH_ITERATIONS:-20000}" || true

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
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
start "$bin/bench/bare_beast_server" 0
beast_url="$url"
start "$bin/bench/bare_http_server" 0
httplib_url="$url"

requests_per_second() {  # wrk [args] URL -> requests/s
  wrk -t2 -c32 -d"$duration" "$@" | awk '/Requests\/sec/ {print $2}'
}
echo "== load on loopback (wrk -t2 -c32 -d$duration)"
post() { requests_per_second -s "$root/bench/post_replay.lua" "$1/jobs"; }
lookup() { requests_per_second "$1/jobs/by-idempotency-key/bench:order-42"; }
provider_post=$(post "$provider_url")
beast_post=$(post "$beast_url")
httplib_post=$(post "$httplib_url")
provider_get=$(lookup "$provider_url")
beast_get=$(lookup "$beast_url")
httplib_get=$(lookup "$httplib_url")
report() {  # name provider beast httplib
  awk -v n="$1" -v p="$2" -v b="$3" -v h="$4" 'BEGIN {
    printf "%-22s provider %8.0f req/s   bare Beast %8.0f (ratio %.2f)   bare cpp-httplib %8.0f (ratio %.2f)\n", n, p, b, p / b, h, p / h
  }'
}
report "POST /jobs (replay)" "$provider_post" "$beast_post" "$httplib_post"
report "GET lookup by key" "$provider_get" "$beast_get" "$httplib_get"
