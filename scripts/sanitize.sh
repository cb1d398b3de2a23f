#!/usr/bin/env bash
# Builds and runs tests under the sanitizers, each preset in its own build directory, and
# builds only the test programs it runs. What CI runs (.ci/run, after scripts/test.sh):
#   tsan      ThreadSanitizer over the tests labelled "concurrency": provider_http_tests and
#             proxy_http_tests, the HTTP servers in-process with their I/O threads, timers,
#             upstream client and stop; sim_fleet_tests, the simulation's fleet scheduler
#   sanitize  AddressSanitizer + UndefinedBehaviorSanitizer over the code that parses what
#             clients send: the same three programs, and those labelled "hostile-input"
#             (common_tests, provider_core_tests, proxy_core_tests: keys, escapes, JSON and
#             form bodies, plans, shapes, the cores' decisions)
# Usage:
#   scripts/sanitize.sh [tsan|sanitize]...   (default: both, tsan first)
#   scripts/sanitize.sh --whole-suite        ASan + UBSan over every test (a full build: long)
# Arguments after -- go to ctest, e.g. scripts/sanitize.sh sanitize -- -R Http
# Each preset prints "sanitize: PRESET: build N s, tests N s".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root"

whole_suite=0
presets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --whole-suite) whole_suite=1 ;;
    tsan | sanitize) presets+=("$1") ;;
    *) echo "sanitize.sh: unknown argument '$1' (tsan, sanitize, --whole-suite, -- CTEST ARGS)" >&2; exit 2 ;;
  esac
  shift
done
[ $# -gt 0 ] && shift  # the --
if [ "$whole_suite" = 1 ]; then
  presets=(sanitize)
elif [ ${#presets[@]} -eq 0 ]; then
  presets=(tsan sanitize)
fi

# The simulation's fleet scheduler runs a thread per simulated client (label concurrency).
http_tests=(provider_http_tests proxy_http_tests sim_fleet_tests)
input_tests=(common_tests provider_core_tests proxy_core_tests)

# Sets cpu to the user and system seconds of this script's finished children (compilers,
# tests). Called as it is, not in $(...): a subshell would count its own children only.
times_file="$(mktemp)"
trap 'rm -f "$times_file"' EXIT
cpu=0
cpu_seconds() {
  times >"$times_file"
  # The second line is the children's: "XmY.YYYs XmY.YYYs".
  cpu=$(awk 'NR == 2 { total = 0; for (i = 1; i <= 2; i++) { split($i, t, "m"); total += t[1] * 60 + t[2] }
                       printf "%d", total }' "$times_file")
}

status=0
for preset in "${presets[@]}"; do
  build=(); select=()
  if [ "$preset" = tsan ]; then
    build=(--target "${http_tests[@]}")  # the preset's tests are the label "concurrency"
  elif [ "$whole_suite" = 0 ]; then
    build=(--target "${http_tests[@]}" "${input_tests[@]}")
    select=(-L 'concurrency|hostile-input')
  fi
  cpu_seconds
  cpu_before=$cpu
  started=$(date +%s)
  cmake --preset "$preset" >/dev/null
  # At a lower priority on a shared machine (RETRYPROOF_NICE, default 10; no effect alone).
  nice -n "${RETRYPROOF_NICE:-10}" cmake --build --preset "$preset" "${build[@]}"
  built=$(date +%s)
  cpu_seconds
  cpu_built=$cpu
  ctest --preset "$preset" "${select[@]}" "$@" || status=$?
  finished=$(date +%s)
  cpu_seconds
  cpu_finished=$cpu
  # CPU seconds do not grow with the machine's load as wall-clock seconds do: on an idle
  # 2-core machine the build takes about half its CPU seconds.
  echo "sanitize: $preset: build $((built - started)) s ($((cpu_built - cpu_before)) CPU s)," \
    "tests $((finished - built)) s ($((cpu_finished - cpu_built)) CPU s)"
done
exit "$status"
