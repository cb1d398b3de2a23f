#!/usr/bin/env bash
# Builds and runs the tests under the sanitizers, each in its own build directory:
#   sanitize  AddressSanitizer + UndefinedBehaviorSanitizer, the whole suite
#   tsan      ThreadSanitizer, the tests labelled "concurrency" (provider_http_tests: the
#             HTTP server in-process, with its I/O threads, timers and stop)
# Long (each is a full build), so not part of scripts/test.sh. Usage:
#   scripts/sanitize.sh [sanitize|tsan]...      (default: both, one after the other)
# Arguments after -- go to ctest, e.g. scripts/sanitize.sh sanitize -- -R Http
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"

presets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do presets+=("$1"); shift; done
[ $# -gt 0 ] && shift  # the --
[ ${#presets[@]} -gt 0 ] || presets=(sanitize tsan)

# What each preset's tests need: tsan runs the in-process HTTP server tests only (where
# the threads are), so it builds no other program.
targets() {
  case "$1" in
    tsan) echo "--target provider_http_tests" ;;
    *) echo "" ;;
  esac
}

status=0
for preset in "${presets[@]}"; do
  started=$(date +%s)
  cmake --preset "$preset" >/dev/null
  # One build at a time, at a lower priority: the machine is shared.
  # shellcheck disable=SC2046  # the targets are separate words
  nice -n 10 cmake --build --preset "$preset" $(targets "$preset")
  built=$(date +%s)
  ctest --preset "$preset" "$@" || status=$?
  finished=$(date +%s)
  echo "sanitize: $preset: build $((built - started)) s, tests $((finished - built)) s"
done
exit "$status"
