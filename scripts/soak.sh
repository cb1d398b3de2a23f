#!/usr/bin/env bash
# A soak of the provider on the release build, loopback only, bounded in time: for
# SOAK_DURATION (default 300s) wrk sends new operations under a chaos plan (drops,
# resets, truncations, delays), replays and lookups, while slow clients hold idle and
# trickling connections open. The provider's resident memory and open descriptors are
# sampled every 5 s. Not part of scripts/test.sh: it is long. Two modes:
#   SOAK_MODE=reset (the default): the control plane resets the provider every 20 s, so
#     what grows between resets is what leaks, not the journal.
#   SOAK_MODE=bounded: no reset ever; the provider runs with its memory limits
#     (--max-keys SOAK_MAX_KEYS, default 100000; --key-ttl SOAK_KEY_TTL, default 30s;
#     --journal-limit SOAK_JOURNAL_LIMIT, default 100000, spilling to a --journal-file), so
#     resident memory must level off under them while the load goes on: new operations
#     past the bound get 507 until expired keys free room, the journal spills to its file.
#   SOAK_DURATION=600 scripts/soak.sh
#   SOAK_MODE=bounded SOAK_DURATION=180 scripts/soak.sh
#   SOAK_BUILD=dev ... runs the dev build's binary (figures then say so).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" wrk
build="${SOAK_BUILD:-release}"  # SOAK_BUILD=dev: a quick soak without a release build
"$root/scripts/build.sh" "$build" >/dev/null
bin="$root/build/$build"
seconds="${SOAK_DURATION:-300}"
seconds="${seconds%s}"
mode="${SOAK_MODE:-reset}"
case "$mode" in reset | bounded) ;; *) echo "soak: SOAK_MODE is reset or bounded" >&2; exit 2 ;; esac

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

limits=()
if [ "$mode" = bounded ]; then
  limits=(--max-keys "${SOAK_MAX_KEYS:-100000}" --key-ttl "${SOAK_KEY_TTL:-30s}"
    --journal-limit "${SOAK_JOURNAL_LIMIT:-100000}" --journal-file "$work/journal.jsonl")
fi
"$bin/scenarios/retryproof" provider --port 0 "${limits[@]}" >"$work/url" 2>"$work/log" &
provider=$!
pids+=("$provider")
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url="$(head -n 1 "$work/url")"
[ -n "$url" ] || { echo "soak: the provider did not start" >&2; exit 1; }
port="${url##*:}"

chaos='{"chaos":{"seed":7,"rates":{"commit-then-drop":0.05,"commit-then-reset":0.05,
  "commit-then-truncate":0.05,"commit-then-delay:200ms":0.05,"fail-before-commit":0.1}}}'
control() { curl -s -o /dev/null -w '%{http_code}' -X POST "$url/_test/$1" -d "${2:-}"; }
[ "$(control faults "$chaos")" = 200 ] || { echo "soak: the plan was refused" >&2; exit 1; }

sample() {  # seconds-since-start rss-KiB descriptors threads
  printf '%5d %9d %5d %4d\n' "$1" "$(awk '/VmRSS/ {print $2}' "/proc/$provider/status")" \
    "$(ls "/proc/$provider/fd" | wc -l)" "$(awk '/Threads/ {print $2}' "/proc/$provider/status")"
}

echo "== soak ($mode${limits:+: ${limits[*]//$work\//}}): ${seconds}s against $url ($build build)"
wrk -t1 -c48 -d"${seconds}s" -s "$root/bench/post_new_keys.lua" "$url" >"$work/new" 2>&1 &
pids+=($!)
wrk -t1 -c16 -d"${seconds}s" -s "$root/bench/post_replay.lua" "$url/jobs" >"$work/replay" 2>&1 &
pids+=($!)
wrk -t1 -c16 -d"${seconds}s" "$url/jobs/by-idempotency-key/bench:order-42" >"$work/lookup" 2>&1 &
pids+=($!)
python3 "$root/bench/slow_clients.py" "$port" "$seconds" 300 200 >"$work/slow" 2>&1 &
pids+=($!)

echo "    s   RSS KiB   fds thr"
started=$(date +%s)
samples="$work/samples"
while [ $(($(date +%s) - started)) -lt "$seconds" ]; do
  sample $(($(date +%s) - started)) | tee -a "$samples"
  elapsed=$(($(date +%s) - started))
  if [ "$mode" = reset ] && [ $((elapsed % 20)) -lt 5 ] && [ "$elapsed" -gt 0 ]; then
    control reset >/dev/null
    control faults "$chaos" >/dev/null
  fi
  sleep 5
done
wait "${pids[@]:1}" 2>/dev/null || true
sleep 6  # idle and header deadlines close what the load left open
sample $(($(date +%s) - started)) | tee -a "$samples"

echo "== load"
for name in new replay lookup; do
  printf '%-7s %s\n' "$name" "$(awk '/Requests\/sec/ {r=$2} /requests in/ {n=$1} /Socket errors/ {e=$0} END {print n " requests, " r " req/s" (e ? "; " e : "")}' "$work/$name")"
done
cat "$work/slow"
echo "== provider (after the first minute: the steady state)"
awk 'NR == 1 {first_rss = $2; first_fd = $3}
     $1 >= 60 && !steady {steady = 1; base = $2}
     {if ($2 > max_rss) max_rss = $2; if ($3 > max_fd) max_fd = $3; last_rss = $2; last_fd = $3}
     END {printf "RSS KiB: first %d, at 60 s %d, max %d, last %d;  fds: first %d, max %d, last %d\n",
                 first_rss, base, max_rss, last_rss, first_fd, max_fd, last_fd}' "$samples"
kill -0 "$provider" || { echo "soak: the provider died" >&2; exit 1; }
echo "the provider is alive: $(curl -s "$url/_test/jobs" | head -c 60)"
if [ "$mode" = bounded ]; then
  page="$(curl -s "$url/_test/journal?after=0&limit=1")"
  freed="$(curl -s "$url/_test/jobs" | grep -o '"freed":[0-9]*' | cut -d: -f2 || true)"
  printf 'journal: %s entries (%s lines spilled to its file, %s MiB); jobs of expired keys freed %s; new keys answered non-2xx (507s, and 503s of the plan) %s\n' \
    "$(echo "$page" | grep -o '"count":[0-9]*' | cut -d: -f2)" "$(wc -l <"$work/journal.jsonl")" \
    "$(($(stat -c %s "$work/journal.jsonl") / 1048576))" "${freed:-0}" \
    "$(awk '/Non-2xx/ {print $NF}' "$work/new")"
fi
