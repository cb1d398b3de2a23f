#!/usr/bin/env bash
# CPU per operation, a client as a session against a process per operation (issue #34
# item 9): the same operations, with no fault, served once by five long-lived sessions under
# steady traffic (20 a second for 10 s: docs/sessions.md) and once by a fleet of per-operation
# processes (as many operations, 20 at a time), for the reference client, the Python example
# and the Node example. Each figure is GNU time's user+system of the whole run (the provider
# in retryproof, and every client it waited for) over the operations: the provider's share is
# the same in both, so the ratio is the clients'.
# Called by scripts/bench.sh with the release build's retryproof and the project root.
set -euo pipefail
retryproof="$1"
root="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/traffic.json" <<'JSON'
{"name": "cpu-traffic", "traffic": {"rate": "20/s", "for": "10s", "arrival": "uniform", "instances": 5},
 "plan": {"faults": []}, "expect": {"outcomes": ["succeeded"]}}
JSON
cat >"$work/fleet.json" <<'JSON'
{"name": "cpu-fleet", "concurrency": 20, "generatedOperations": {"count": 200, "idPrefix": "fulfillment:cpu-"},
 "plan": {"faults": []}, "expect": {"outcomes": ["succeeded"]}}
JSON
cpu_ms() {  # scenario client: the run's user+system CPU in ms
  /usr/bin/time -f '%U %S' -o "$work/time" "$retryproof" run "$1" --client "$2" >"$work/out" 2>&1 ||
    { echo "  the run failed:" >&2; tail -5 "$work/out" >&2; }
  awk '{ printf "%d", ($1 + $2) * 1000 }' "$work/time"
}
echo "== CPU per operation: sessions against a process per operation (200 operations each)"
for pair in "reference|reference|reference" \
            "python|cmd:python3 $root/examples/python/session_client.py|cmd:python3 $root/examples/python/correct_client.py" \
            "node|cmd:node $root/examples/node/session_client.mjs|cmd:node $root/examples/node/correct_client.mjs"; do
  IFS='|' read -r name session process <<<"$pair"
  as_sessions="$(cpu_ms "$work/traffic.json" "$session")"
  per_process="$(cpu_ms "$work/fleet.json" "$process")"
  awk -v n="$name" -v s="$as_sessions" -v p="$per_process" 'BEGIN {
    printf "%-10s sessions %6.2f ms/op   process per op %6.2f ms/op   ratio %.2f\n", n, s / 200, p / 200, s / p }'
done
