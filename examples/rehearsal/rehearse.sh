#!/usr/bin/env bash
# The rehearsal of docs/rehearsal.md, end to end: the blocks the page shows are this file's
# (tests/rehearsal_doc_test.sh checks it), and ctest example_rehearsal runs it both ways.
#
# A retryproof provider stands in for the fulfillment API's sandbox, over HTTPS as real
# sandboxes are (its own CA, which the proxy is told to trust); a retryproof proxy in
# front of it injects the seeded fault plan (plan.json) and journals the service's calls by
# orderId; the service (order_service.py) calls the proxy; retryproof deliver sends it
# events.json with duplicates; retryproof judge reads the proxy's journal. Exit status: the
# judge's (0 clean, 1 violations; 2 when a part did not start).
#
#   rehearse.sh [--fixed] [--out DIR]     the program: $RETRYPROOF_BINARY, or retryproof on PATH
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
retryproof="${RETRYPROOF_BINARY:-$(command -v retryproof || true)}"
fixed=()
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fixed) fixed=(--fixed) ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    *) echo "rehearse.sh: unknown argument \"$1\"; usage: rehearse.sh [--fixed] [--out DIR]" >&2
       exit 2 ;;
  esac
  shift
done
[ -x "$retryproof" ] || { echo "rehearse.sh: retryproof not found: set RETRYPROOF_BINARY or" \
  "put it on PATH (a build leaves it at build/dev/scenarios/retryproof)" >&2; exit 2; }
out="${out:-$(mktemp -d "${TMPDIR:-/tmp}/rehearsal-XXXXXX")}"
mkdir -p "$out"
rm -f "$out"/*.url

servers=()
stop_servers() {
  for pid in "${servers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait || true
}
trap stop_servers EXIT

# start NAME COMMAND...: runs a server that prints its URL on its first line, in the
# background, its standard error in $out/NAME.log; sets $url to that line, and $lines to a
# descriptor its next lines are read from. It waits for the line itself (through a FIFO),
# not for a while: a server that exits first is an error.
start() {
  local name="$1" fd
  shift
  mkfifo "$out/$name.url"
  "$@" >"$out/$name.url" 2>"$out/$name.log" &
  servers+=("$!")
  exec {fd}<"$out/$name.url"  # kept open: the server may write to it again
  if ! IFS= read -r url <&"$fd"; then
    echo "rehearse.sh: $name did not start:" >&2
    cat "$out/$name.log" >&2
    exit 2
  fi
  lines="$fd"
}

# 1. The sandbox, and the proxy in front of it.
start sandbox "$retryproof" provider --port 0 --seed 1 --tls
sandbox="$url"  # https://127.0.0.1:PORT
IFS= read -r ca <&"$lines" && ca="${ca#CA file: }"  # the sandbox's CA certificate
start proxy "$retryproof" proxy --upstream "$sandbox" --upstream-ca "$ca" --port 0 \
  --operation-field orderId --plan "$here/plan.json"
proxy="$url"
echo "rehearse.sh: the proxy's live page: $proxy/_test/ui" >&2

# 2. The service, calling the proxy; its events delivered with duplicates.
start service python3 "$here/order_service.py" --upstream "$proxy" --secret s3 "${fixed[@]}"
service="$url"
delivered=0  # 1 when the service refused a delivery: the judge says what it did meanwhile
"$retryproof" deliver --target "$service/webhooks" --events "$here/events.json" \
  --seed 1 --secret s3 >"$out/deliver.txt" || delivered=$?

# 3. The judge, by orderId, of the proxy's journal.
curl -sS --fail "$proxy/_test/journal" >"$out/journal.json"
curl -sS --fail --cacert "$ca" "$sandbox/_test/jobs" >"$out/sandbox-jobs.json"
judged=0
"$retryproof" judge "$out/journal.json" --operation-field orderId \
  --json "$out/judge.json" --markdown "$out/judge.md" || judged=$?
curl -sS --fail "$proxy/_test/verdicts?format=json" >"$out/verdicts.json"

echo "rehearse.sh: deliver exited $delivered, judge $judged; the journal and reports are in $out" >&2
exit "$judged"
