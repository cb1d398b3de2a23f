#!/usr/bin/env bash
# The README's sample of `retryproof run` is what the program prints: every line of the
# block after the README's marker appears in the output, in order; a line "..." stands for
# lines left out, and the lines between two of them are consecutive in the output too.
# The source tree's path is shown as /path/to/retryproof.
# Usage: readme_sample_test.sh RETRYPROOF SOURCE_DIR
set -euo pipefail
retryproof="$1"
source="$2"
fail() { echo "readme sample: $*" >&2; exit 1; }

mapfile -t sample < <(awk '/readme_sample_test.sh checks/ { marked = 1; next }
                           marked && /^```/ { if (inside) exit; inside = 1; next }
                           inside { print }' "$source/README.md")
[ "${#sample[@]}" -gt 3 ] || fail "no sample block after the marker in README.md"

status=0
output="$("$retryproof" run 2>/dev/null)" || status=$?
[ "$status" -eq 0 ] || fail "retryproof run exited $status"
mapfile -t lines <<<"${output//"$source/"//path/to/retryproof/}"

# Whether the sample's lines from $1 up to the next "..." are the output's from $2 on.
segment_at() {
  local i="$1" at="$2"
  while [ "$i" -lt "${#sample[@]}" ] && [ "${sample[i]}" != "..." ]; do
    [ "$at" -lt "${#lines[@]}" ] && [ "${lines[at]}" == "${sample[i]}" ] || return 1
    i=$((i + 1))
    at=$((at + 1))
  done
}

position=0
line=0
while [ "$line" -lt "${#sample[@]}" ]; do
  if [ "${sample[line]}" == "..." ]; then
    line=$((line + 1))
    continue
  fi
  # The segment's first place at or after the previous segment's end.
  while [ "$position" -lt "${#lines[@]}" ] && ! segment_at "$line" "$position"; do
    position=$((position + 1))
  done
  [ "$position" -lt "${#lines[@]}" ] ||
    fail "the README's line \"${sample[line]}\" (with those after it up to \"...\") is not in the output of retryproof run, in that order"
  while [ "$line" -lt "${#sample[@]}" ] && [ "${sample[line]}" != "..." ]; do
    line=$((line + 1))
    position=$((position + 1))
  done
done
echo "readme sample: all ${#sample[@]} lines match"
