#!/usr/bin/env bash
# Configures and builds one preset (default: dev), and within it only the targets named
# after the preset, or every target when none is named.
# Usage: scripts/build.sh [dev|release] [target...]    e.g. scripts/build.sh dev retryproof
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-dev}"
shift || true
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cd "$root"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" "${targets[@]}"
