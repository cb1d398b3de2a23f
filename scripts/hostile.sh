#!/usr/bin/env bash
# Hostile inputs against the release provider on loopback (bench/hostile_inputs.py: raw
# bytes, huge and malformed heads, bad framing, pipelining floods, slowloris, half-open
# and reset connections, a connection storm), each checked for a clear answer and a live
# provider afterwards. Bounded (about a minute); not part of scripts/test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" release >/dev/null
work="$(mktemp -d)"
"$root/build/release/scenarios/retryproof" provider --port 0 >"$work/url" 2>/dev/null &
provider=$!
trap 'kill "$provider" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.05; done
url="$(head -n 1 "$work/url")"
[ -n "$url" ] || { echo "hostile: the provider did not start" >&2; exit 1; }
python3 "$root/bench/hostile_inputs.py" "${url##*:}" "$provider"
