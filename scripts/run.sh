#!/usr/bin/env bash
# Sets up, builds, and runs the main job. Until the scenario runner lands, the main job
# is a narrated demonstration of the three well-known situations against a live provider.
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
"$root/build/dev/scenarios/retryproof" demo "$@"
