#!/usr/bin/env bash
# Sets up, builds, and runs the main job: the scenario catalog against the reference
# client, then the mutant matrix (the reference client clean, every mutant caught).
# Arguments go to the first run: scripts/run.sh --client 'cmd:python3 my_client.py'
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
# Only the program the main job runs is built, not the test suite (scripts/test.sh builds
# that). The build shows its progress, one line per step ([12/96] Building ...), on standard
# error so that standard output stays the report; the first build takes minutes, later ones
# only recompile what changed.
echo "run: building the retryproof program (build/dev)" >&2
if ! "$root/scripts/build.sh" dev retryproof >&2; then
  echo "run: the build failed (errors above)" >&2
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
