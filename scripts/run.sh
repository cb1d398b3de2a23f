#!/usr/bin/env bash
# Sets up, builds, and runs the main job: the scenario catalog against the reference
# client, then the mutant matrix (the reference client clean, every mutant caught).
# Arguments go to the first run: scripts/run.sh --client 'cmd:python3 my_client.py'
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! "$root/scripts/build.sh" dev >"$log" 2>&1; then
  cat "$log" >&2
  echo "run: the build failed (output above)" >&2
  exit 1
fi
retryproof="$root/build/dev/scenarios/retryproof"

status=0
"$retryproof" run "$@" || status=$?
if [ $# -eq 0 ]; then
  echo
  "$retryproof" run --mutants || status=$?
fi
exit "$status"
