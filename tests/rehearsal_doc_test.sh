#!/usr/bin/env bash
# docs/rehearsal.md shows the rehearsal as examples/rehearsal/rehearse.sh runs it (ctest
# example_rehearsal runs the script): every code block after a line
# "<!-- rehearsal_doc_test.sh: from rehearse.sh -->" is a run of consecutive lines of the
# script, so the page cannot say one thing while the test runs another.
# Usage: rehearsal_doc_test.sh SOURCE_DIR
set -euo pipefail
source="$1"
doc="$source/docs/rehearsal.md"
script="$source/examples/rehearsal/rehearse.sh"
fail() { echo "rehearsal doc: $*" >&2; exit 1; }

mapfile -t lines <"$script"
# The marked blocks, each ended by a line "<<end>>".
mapfile -t shown < <(awk '/rehearsal_doc_test.sh: from rehearse.sh/ { marked = 1; next }
                          marked && /^```/ { if (inside) { print "<<end>>"; inside = 0; marked = 0 }
                                             else inside = 1; next }
                          inside { print }' "$doc")
blocks=0
block=()
# Whether the block's lines are the script's from line $1 on.
block_at() {
  local at="$1" i
  for i in "${!block[@]}"; do
    [ $((at + i)) -lt "${#lines[@]}" ] && [ "${lines[at + i]}" == "${block[i]}" ] || return 1
  done
}
for line in "${shown[@]}"; do
  if [ "$line" != "<<end>>" ]; then
    block+=("$line")
    continue
  fi
  blocks=$((blocks + 1))
  [ "${#block[@]}" -gt 0 ] || fail "block $blocks is empty"
  found=""
  for at in "${!lines[@]}"; do
    if block_at "$at"; then found="$at"; break; fi
  done
  [ -n "$found" ] || fail "block $blocks of docs/rehearsal.md is not in rehearse.sh as shown:
$(printf '  %s\n' "${block[@]}")"
  block=()
done
[ "$blocks" -ge 3 ] || fail "only $blocks marked blocks in docs/rehearsal.md; expected the walkthrough's"
echo "rehearsal doc: $blocks blocks, each in rehearse.sh as shown"
