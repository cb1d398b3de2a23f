#!/usr/bin/env bash
# Benchmarks on the release build, each reported as a ratio to a baseline measured in
# the same run (machines here are small and noisy: absolute figures drift, ratios less).
#   1. Simulation: three-attempt client runs per second on one core, against bare
#      provider-core creates.
#   2. Load: wrk against the provider (POST replays, lookups), against a bare
#      cpp-httplib server answering a constant, on loopback.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
command -v wrk >/dev/null || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo; $sudo apt-get install -y wrk; }
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
start "$bin/bench/bare_http_server" 0
bare_url="$url"

requests_per_second() {  # wrk [args] URL -> requests/s
  wrk -t2 -c32 -d"$duration" "$@" | awk '/Requests\/sec/ {print $2}'
}
echo "== load on loopback (wrk -t2 -c32 -d$duration)"
bare_post=$(requests_per_second -s "$root/bench/post_replay.lua" "$bare_url/jobs")
provider_post=$(requests_per_second -s "$root/bench/post_replay.lua" "$provider_url/jobs")
bare_get=$(requests_per_second "$bare_url/jobs/by-idempotency-key/bench:order-42")
provider_get=$(requests_per_second "$provider_url/jobs/by-idempotency-key/bench:order-42")
awk -v bp="$bare_post" -v pp="$provider_post" -v bg="$bare_get" -v pg="$provider_get" 'BEGIN {
  printf "POST /jobs (replay)      provider %9.0f req/s   bare %9.0f req/s   ratio %.2f\n", pp, bp, pp / bp
  printf "GET lookup by key        provider %9.0f req/s   bare %9.0f req/s   ratio %.2f\n", pg, bg, pg / bg
}'
