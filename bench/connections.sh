#!/usr/bin/env bash
# What the provider pays per connection (issue #25 item 5), beside bare Beast holding the
# same connections in the same run (bench/bare_beast_server.cpp: the provider's library,
# its thread count, answering a constant). For each count, a fresh server of each kind;
# bench/hold_connections.py opens the connections over loopback, holds them idle, makes
# each send BENCH_CONN_ROUNDS POST /jobs replays one at a time, then closes them, and reads
# the server's resident set, CPU and descriptors from /proc between the phases.
# The provider runs with the caps raised to fit: --max-connections COUNT+100 (default 1024),
# --idle-timeout 10m (default 5 s, which would close idle connections mid-measurement),
# --journal-limit 1000 (entries past it dropped, so that a request's journal entry, which
# bench/memory.sh measures, is not counted as the connection's) and --log none (its cost is
# the load section's). Then one run at the provider's defaults: what happens past its cap.
#   bench/connections.sh BIN_DIR [COUNT...]   (default 1000 10000; scripts/bench.sh runs it)
set -euo pipefail
bin="$1"
shift
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000 10000)
rounds="${BENCH_CONN_ROUNDS:-10}"
hold="${BENCH_CONN_HOLD:-3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Each connection is a descriptor at both ends: the client and each server need COUNT plus
# a few. Raise the soft limit as far as the hard limit allows; children inherit it.
largest=$(printf '%s\n' "${counts[@]}" | sort -n | tail -n 1)
need=$((largest + 256))
if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$need" ]; then
  ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
fi
limit="$(ulimit -Sn)"

started=""
port=""
start() {  # start a server in the background; sets $started (its pid) and $port
  local out="$work/url"
  : >"$out"
  "$@" >"$out" 2>/dev/null &
  started=$!
  pids+=("$started")
  for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
  port="$(sed -n '1s/.*://p' "$out")"
  [ -n "$port" ] || { echo "connections: $1 did not start" >&2; exit 1; }
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
result=""
measure() {  # count server-args...; sets $result to the helper's name=value line ("" if it failed)
  local count="$1"
  shift
  start "$@"
  result=$(python3 "$here/hold_connections.py" "$started" "$port" "$count" "$rounds" "$hold") || result=""
  stop "$started"
}

echo "== connections held over loopback: idle ${hold} s, then each sends $rounds POST /jobs replays, one at a time (bench/hold_connections.py; ulimit -n $limit)"
for count in "${counts[@]}"; do
  if [ "$limit" != unlimited ] && [ "$limit" -lt $((count + 256)) ]; then
    echo "$count connections: not measured, ulimit -n is $limit (the hard limit) and each end needs $count descriptors and more"
    continue
  fi
  measure "$count" "$bin/scenarios/retryproof" provider --port 0 --log none \
    --max-connections $((count + 100)) --idle-timeout 10m --journal-limit 1000
  provider="$result"
  measure "$count" "$bin/bench/bare_beast_server" 0
  beast="$result"
  if [ -z "$provider" ] || [ -z "$beast" ]; then
    echo "$count connections: not measured, bench/hold_connections.py failed (its error is above)"
    continue
  fi
  awk -v p="$provider" -v b="$beast" -v r="$rounds" '
    function parse(line, into,    fields, i, kv) {
      split(line, fields, " ")
      for (i in fields) { split(fields[i], kv, "="); into[kv[1]] = kv[2] }
    }
    function per(x, n) { return n > 0 ? x / n : 0 }
    function ratio(x, y) { return y > 0 ? sprintf("(ratio %.2f)", x / y) : "" }
    function row(what, x, y, unit, fmt) {
      printf "  %-34s provider " fmt " %-4s  bare Beast " fmt " %-4s %s\n", what, x, unit, y, unit, ratio(x, y)
    }
    BEGIN {
      parse(p, P); parse(b, B)
      n = P["asked"]
      printf "%d connections  provider held %d (503 %d, closed %d, refused %d), opened in %.1f s   bare Beast held %d, opened in %.1f s\n",
        n, P["held"], P["answered_503"], P["closed_idle"], P["refused_connect"], P["opened_s"], B["held"], B["opened_s"]
      row("resident a connection, idle", per(P["rss_held_kib"] - P["rss_before_kib"], P["held"]), per(B["rss_held_kib"] - B["rss_before_kib"], B["held"]), "KiB", "%8.1f")
      row("CPU to accept a connection", per(P["cpu_open_ns"], P["connected"]) / 1000, per(B["cpu_open_ns"], B["connected"]) / 1000, "us", "%8.1f")
      row("CPU while all sit idle " P["hold_s"] " s", P["cpu_hold_ns"] / 1e6, B["cpu_hold_ns"] / 1e6, "ms", "%8.1f")
      pa = P["answers_2xx"] + P["answers_other"]; ba = B["answers_2xx"] + B["answers_other"]
      row("CPU a request, all active", per(P["cpu_active_ns"], pa) / 1000, per(B["cpu_active_ns"], ba) / 1000, "us", "%8.1f")
      row("CPU a connection, its requests", per(P["cpu_active_ns"], P["held"]) / 1000, per(B["cpu_active_ns"], B["held"]) / 1000, "us", "%8.1f")
      row("resident a connection, after", per(P["rss_active_kib"] - P["rss_before_kib"], P["held"]), per(B["rss_active_kib"] - B["rss_before_kib"], B["held"]), "KiB", "%8.1f")
      printf "  %-34s provider %d of %d (not 2xx %d, lost %d) in %.1f s   bare Beast %d of %d (lost %d) in %.1f s\n", "requests answered",
        pa, P["held"] * r, P["answers_other"], P["lost"], P["active_s"], ba, B["held"] * r, B["lost"], B["active_s"]
      printf "  %-34s provider %.1f MB, %d fds (%.1f MB, %d before)   bare Beast %.1f MB, %d fds (%.1f MB, %d before)\n", "once all are closed",
        P["rss_closed_kib"] / 1024, P["fds_closed"], P["rss_before_kib"] / 1024, P["fds_before"],
        B["rss_closed_kib"] / 1024, B["fds_closed"], B["rss_before_kib"] / 1024, B["fds_before"]
    }'
done

# Past the cap, at the provider's defaults: the connections it serves, the control plane's
# reserved seats (closed after a second without a /_test/ call), and 503s for the rest. The
# hold is 1.5 s here: past the seats' second, inside the 5 s idle deadline, which would
# otherwise close the served connections too and hide how many there were.
count="$largest"
hold=1.5
if [ "$limit" = unlimited ] || [ "$limit" -ge $((count + 256)) ]; then
  measure "$count" "$bin/scenarios/retryproof" provider --port 0 --log none
  if [ -z "$result" ]; then
    echo "$count connections at the provider's defaults: not measured, bench/hold_connections.py failed"
  else
    awk -v p="$result" -v r="$rounds" 'BEGIN {
      split(p, fields, " "); for (i in fields) { split(fields[i], kv, "="); P[kv[1]] = kv[2] }
      c = P["connected"] > 0 ? P["connected"] : 1
      printf "%d connections at the provider'"'"'s defaults (--max-connections 1024, --idle-timeout 5s), opened in %.1f s, held %.1f s:\n", P["asked"], P["opened_s"], P["hold_s"]
      printf "  served %d, answered 503 at once %d, closed without an answer %d, refused by the kernel %d; the %d served answered %d of %d requests (not 2xx %d, lost %d)\n",
        P["held"], P["answered_503"], P["closed_idle"], P["refused_connect"], P["held"],
        P["answers_2xx"] + P["answers_other"], P["held"] * r, P["answers_other"], P["lost"]
      if (P["lost"] > 0 && P["opened_s"] + P["hold_s"] >= 4.5)  # the served opened first: the 5 s idle deadline, less time for the requests
        printf "  (not the cap: opening took %.1f s, so the first served connections sat idle %.1f s and more, up to the 5 s idle deadline, before their requests; a rerun measures the cap)\n", P["opened_s"], P["opened_s"] + P["hold_s"]
      printf "  resident %.1f MB before, %.1f MB with all %d open (%.1f KiB each), %.1f MB once all are closed; CPU %.1f us a connection to accept or refuse\n",
        P["rss_before_kib"] / 1024, P["rss_idle_kib"] / 1024, P["connected"], (P["rss_idle_kib"] - P["rss_before_kib"]) / c,
        P["rss_closed_kib"] / 1024, P["cpu_open_ns"] / c / 1000
    }'
  fi
fi
