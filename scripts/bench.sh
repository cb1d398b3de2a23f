#!/usr/bin/env bash
# Benchmarks on the release build, each reported as a ratio to a baseline measured in
# the same run (machines here are small and noisy: absolute figures drift, ratios less).
#   1. Simulation: three-attempt client runs per second on one core, against bare
#      provider-core creates.
#   2. Load: wrk against the provider (POST new keys, replays, lookups; the provider's p99
#      latency for each), against a bare Boost.Beast
#      server answering a constant (the provider's own library, same thread count) and a
#      bare cpp-httplib one (the library it used before), on loopback; nginx answering a
#      provider with its per-request log against --log none. Then peers under the same load
#      (bench/peers.sh): nginx, Node's own HTTP server and Mountebank, each answering a
#      fixed 201, with the provider's ratio to each.
#   3. Compressed time (bench/time_scale.sh): the catalog, and the storm set apart, through
#      the Python and Node examples and the reference client, and explore's schedules per
#      minute, at --time-scale 10 against scale 1.
#   4. Memory (bench/memory.sh): bytes per stored key and per journal entry (new keys,
#      replays, lookups of a known key, missed lookups; BENCH_KEYS of each, default
#      1000000), against a std::unordered_map<std::string, std::string> of the same keys,
#      and the resident set after BENCH_KEYS new keys (issue #14: <= 300 MB at 1,000,000).
#   5. Connections (bench/connections.sh): the provider's resident set and CPU per
#      connection, 1,000 and 10,000 of them (BENCH_CONNECTIONS) held idle, then each sending
#      requests, against bare Beast holding the same; then what happens past the provider's
#      default cap.
#   6. Fleets (bench/storm.sh): a hundred external Node clients through an outage, against
#      a hundred reference clients: wall time and memory, and CPU, memory and start per client.
#   7. Sessions (bench/sessions.sh): CPU per operation for the reference client, the Python
#      and the Node examples as long-lived sessions under traffic, against a process per
#      operation.
# Then the goals of issue #25 for the provider, each against its measured figure.
# BENCH_SECTIONS (default "simulation load time-scale memory connections storm sessions") runs only
# those named.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sections=" ${BENCH_SECTIONS:-simulation load time-scale memory connections storm sessions} "
runs() { [[ "$sections" == *" $1 "* ]]; }
"$root/scripts/setup.sh" wrk nginx-light
# The peers' npm packages, exactly as their lock pins them (a copy of the lock it was
# installed from says whether it still matches). Only the load section runs them.
peers="$root/bench/peers"
if runs load && ! cmp -s "$peers/package-lock.json" "$peers/node_modules/.installed-from-lock" 2>/dev/null; then
  npm ci --prefix "$peers" --no-audit --no-fund --loglevel=error >&2
  cp "$peers/package-lock.json" "$peers/node_modules/.installed-from-lock"
fi
"$root/scripts/build.sh" release >/dev/null
bin="$root/build/release"
duration="${BENCH_DURATION:-5s}"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

if runs simulation; then
  echo "== simulation throughput"
  taskset -c 0 "$bin/bench/sim_throughput" "${BENCH_ITERATIONS:-20000}" || true
  "$root/bench/sim_fleet.sh" "$bin" "${BENCH_FLEET:-1000}" || true
fi

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
if runs load; then
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
  echo "== peers under the same load, each answering a fixed 201 (wrk -t2 -c32 -d$duration)"
  "$root/bench/peers.sh" "$duration" "$provider_new" "$provider_post"
fi

time_scale="$(mktemp)"
runs time-scale && "$root/bench/time_scale.sh" "$bin/scenarios/retryproof" "$root" | tee "$time_scale"

memory="$(mktemp)"
runs memory && "$root/bench/memory.sh" "$bin" "${BENCH_KEYS:-1000000}" | tee "$memory"

# Unquoted: BENCH_CONNECTIONS is a list of counts.
runs connections && "$root/bench/connections.sh" "$bin" ${BENCH_CONNECTIONS:-1000 10000}

runs storm && "$root/bench/storm.sh" "$bin/scenarios/retryproof" "$root"
runs sessions && "$root/bench/sessions.sh" "$bin/scenarios/retryproof" "$root"

# Issue #25's goals for the provider (items 3 and 4), each against its figure in this run.
echo "== goals: the provider at its HTTP library's ceiling (issue #25), this run"
goal() {  # what target measured met(1, 0, or - when not measured)
  local verdict="not met"
  [ "$4" = 1 ] && verdict="met"
  [ "$4" = - ] && verdict="not measured in this run"
  printf "%-44s %-12s %-34s %s\n" "$1" "$2" "$3" "$verdict"
}
if runs load; then
  ratio_goal() {  # what provider beast
    local ratio met
    ratio=$(awk -v p="$2" -v b="$3" 'BEGIN {printf "%.2f", p / b}')
    met=$(awk -v r="$ratio" 'BEGIN {print (r >= 0.9) ? 1 : 0}')
    goal "$1" ">= 0.90" "$ratio ($2 / $3 req/s)" "$met"
  }
  ratio_goal "new keys vs bare Beast (log on)" "$provider_new" "$beast_new"
  ratio_goal "replays vs bare Beast (log on)" "$provider_post" "$beast_post"
  ratio_goal "lookups vs bare Beast (log on)" "$provider_get" "$beast_get"
  in_ms() { awk -v t="$1" 'BEGIN {
    v = t + 0; if (t ~ /us$/) v /= 1000; else if (t ~ /ms$/) v += 0; else if (t ~ /s$/) v *= 1000; printf "%.2f\n", v }'; }
  worst=$(for t in "$provider_new_p99" "$provider_post_p99" "$provider_get_p99"; do in_ms "$t"; done | sort -g | tail -n 1)
  goal "p99 at 32 connections, log on (worst of 3)" "<= 5 ms" "$worst ms ($provider_new_p99, $provider_post_p99, $provider_get_p99)" \
    "$(awk -v w="$worst" 'BEGIN {print (w <= 5) ? 1 : 0}')"
else
  goal "new keys, replays, lookups vs bare Beast" ">= 0.90" "-" -
fi
# The first "N bytes" on the line is the key's; the yardstick's follows it.
per_key=$(awk '/^new keys \(store and journal\)/ {for (i = 1; i <= NF; ++i) if ($i == "bytes") { print $(i - 1); exit }}' "$memory")
if [ -n "$per_key" ]; then
  goal "memory per new key, store and journal" "<= 268 B" "$per_key B (aim: <= 150 B)" \
    "$(awk -v b="$per_key" 'BEGIN {print (b <= 268) ? 1 : 0}')"
else
  goal "memory per new key, store and journal" "<= 268 B" "-" -
fi
rm -f "$memory"

# Item 1 and 2's goals: compressed time, from time_scale.sh's lines.
echo "== goals: compressed time that never costs time (issue #25), this run"
scale_goal() {  # what target line-prefix compare(le|ge) limit: the figure before "% of scale 1", or after "ratio"
  local figure
  figure=$(sed -n "s/^$3.* \([0-9.]*\)% of scale 1.*/\1/p; s/^$3.* ratio \([0-9.]*\) .*/\1/p" "$time_scale" | head -n 1)
  if [ -z "$figure" ]; then goal "$1" "$2" "-" -; return; fi
  goal "$1" "$2" "$figure" "$(awk -v v="$figure" -v c="$4" -v l="$5" 'BEGIN {print ((c == "le") ? v <= l : v >= l) ? 1 : 0}')"
}
scale_goal "catalog at scale 10, reference client (%)" "<= 25" "catalog, reference" le 25
scale_goal "catalog at scale 10, Python example (%)" "<= 40" "catalog, Python" le 40
scale_goal "catalog at scale 10, Node example (%)" "<= 40" "catalog, Node" le 40
scale_goal "explore at scale 10, reference (x scale 1)" ">= 4" "explore, reference" ge 4
rm -f "$time_scale"
