#!/usr/bin/env bash
# Every test ctest knows, across every test binary (the names gtest_discover_tests
# registered), is printable ASCII, at most 120 characters, and named from what it tests:
# no raw parameter bytes ("40-byte object <...>", which change between builds) and no bare
# parameter index ("/3"), which changes when a parameter list does.
# Usage: test_names.sh CTEST BUILD_DIR
set -euo pipefail
ctest="$1"
build="$2"
listing="$("$ctest" --test-dir "$build" -N)"
names="$(sed -n 's/^ *Test *#[0-9]*: //p' <<<"$listing")"
count="$(grep -c . <<<"$names" || true)"
[ "$count" -gt 0 ] || { echo "test names: ctest -N listed no tests:"; echo "$listing"; exit 1; }

bad=0
while IFS= read -r name; do
  problem=""
  if LC_ALL=C grep -q '[^ -~]' <<<"$name"; then
    problem="not printable ASCII"
  elif [ "${#name}" -gt 120 ]; then
    problem="${#name} characters, more than 120"
  elif grep -q 'byte object <' <<<"$name"; then
    problem="raw parameter bytes: give the test a name generator"
  elif grep -Eq '/[0-9]+$' <<<"$name"; then
    problem="a parameter index, not a name: give the test a name generator"
  fi
  if [ -n "$problem" ]; then
    echo "test names: $problem: $name"
    bad=$((bad + 1))
  fi
done <<<"$names"
[ "$bad" -eq 0 ] || exit 1
echo "test names: all $count are ASCII, at most 120 characters, and named"
