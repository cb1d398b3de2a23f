#!/usr/bin/env bash
# Sets up, builds and runs every test. Works from any directory, on a fresh clone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" dev
cd "$root"
ctest --preset dev "$@"
