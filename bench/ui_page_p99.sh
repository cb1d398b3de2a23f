#!/usr/bin/env bash
# Issue #24: does the live page cost the data plane? Fills one provider's journal to ENTRIES
# (default a million) with replays, then measures replays (wrk -t2 -c32 --latency, as
# scripts/bench.sh) in alternating rounds without the page and with it open in headless
# chromium (bench/ui_page_open.mjs), and with the page's journal calls alone, made without a
# browser (what the server spends answering the page, apart from what the browser's drawing
# takes from a machine the server shares). The page reads at most three pages of 1,000 a
# second and asks for no verdicts past 100,000 entries. Prints requests/s and p99 per round,
# and what the page had read.
#   bench/ui_page_p99.sh [RETRYPROOF] [ENTRIES] [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
program="${1:-$root/build/release/scenarios/retryproof}"
entries="${2:-1000000}"
rounds="${3:-2}"
duration="${BENCH_DURATION:-10s}"
[ -x "$program" ] || { echo "ui_page_p99: $program is not a program: build it (scripts/build.sh release)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "ui_page_p99: wrk not found: scripts/setup.sh wrk" >&2; exit 2; }

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
out="$(mktemp)"
"$program" provider --port 0 --log none >"$out" 2>/dev/null &
pids+=("$!")
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
url="$(head -n 1 "$out")"
[ -n "$url" ] || { echo "ui_page_p99: the provider did not start" >&2; exit 1; }

count() { curl -sS "$url/_test/journal?after=0&limit=1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])'; }
replays() {  # -> "requests/s p99"
  wrk -t2 -c32 -d"$1" --latency -s "$root/bench/post_replay.lua" "$url/jobs" |
    awk '/Requests\/sec/ {r = $2} /^ +99%/ {p = $2} END {printf "%.0f %s\n", r, p}'
}

while [ "$(count)" -lt "$entries" ]; do replays 5s >/dev/null; done
echo "journal: $(count) entries; load average $(cut -d' ' -f1-3 /proc/loadavg)"
fifo="$(mktemp -u)"
# with PAGE_ARGS LABEL: replays measured while ui_page_open.mjs holds the page (or its calls)
with() {
  local label="$1" hold page rps p99
  shift
  mkfifo "$fifo"
  node "$root/bench/ui_page_open.mjs" "$url" "$@" <"$fifo" >"$out" 2>&1 &
  page=$!
  pids+=("$page")
  exec {hold}>"$fifo"  # the page stays open while this is open
  for _ in $(seq 600); do grep -q '^open' "$out" && break; sleep 0.1; done
  grep -q '^open' "$out" || { echo "ui_page_p99: the page did not open:" >&2; cat "$out" >&2; exit 1; }
  read -r rps p99 <<<"$(replays "$duration")"
  echo "round $round, $label $rps req/s, p99 $p99"
  exec {hold}>&-
  wait "$page" || true
  echo "  $(grep '^closing' "$out" | cut -c10-)"
  rm -f "$fifo"
}
for round in $(seq "$rounds"); do
  read -r rps p99 <<<"$(replays "$duration")"
  echo "round $round, without the page:        $rps req/s, p99 $p99"
  with "its journal calls alone:" --calls-only
  with "the page in chromium:   "
done
echo "journal: $(count) entries; load average $(cut -d' ' -f1-3 /proc/loadavg)"
