#!/usr/bin/env bash
# Configures and builds one preset (default: dev). Usage: scripts/build.sh [dev|release]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-dev}"
cd "$root"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
