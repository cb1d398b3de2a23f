#!/usr/bin/env bash
# Sets up, builds and runs every test. Works from any directory, on a fresh clone.
# Arguments go to ctest, e.g. scripts/test.sh -R Provider, or -E MutantMatrix to skip the
# slowest test.
#
# The property tests run 3500 cases per property from a fixed seed (10,500 schedules
# through the reference client). For more, run the binary with RC_PARAMS:
#   RC_PARAMS="max_success=100000" build/dev/property_tests/property_tests
# and to replay a failure, the seed or "reproduce" string it printed:
#   RC_PARAMS="seed=12345" build/dev/property_tests/property_tests --gtest_filter='ReferenceClient.*'
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" dev
cd "$root"
ctest --preset dev "$@"
