#!/usr/bin/env bash
# Compressed time, each figure beside its baseline from the same run (--time-scale 1):
#   1. the whole catalog's wall time against examples/python/correct_client.py, the Node
#      example and the reference client, whether its verdicts are the same scenario by
#      scenario, and the scales its scenarios ran at;
#   2. explore's schedules per minute, for the reference client and the Python example.
# Called by scripts/bench.sh with the release build's retryproof and the project root.
set -euo pipefail
retryproof="$1"
root="$2"
scale="${BENCH_TIME_SCALE:-10}"
runs="${BENCH_EXPLORE_RUNS:-30}"
# The interpreter itself, not a version manager's shim (pyenv's costs 0.3 s a start).
python="$(python3 -c 'import sys; print(sys.executable)')"
python_client="cmd:$python $root/examples/python/correct_client.py"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

elapsed=""
timed() {  # output-file command... : runs it, keeps its output, sets $elapsed (seconds)
  local out="$1" start end
  shift
  start=$(date +%s.%N)
  "$@" >"$out" 2>&1 || true  # a failing verdict is a figure too, not the bench's failure
  end=$(date +%s.%N)
  elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
}

echo "== time scale $scale against scale 1 (the baseline), same run"
catalog_figure() {  # name client: the catalog at scale 1 and at $scale, and what differs
  local name="$1" client="$2" real_time scaled
  timed "$work/catalog-1.txt" "$retryproof" run --client "$client" --time-scale 1 \
    --json "$work/catalog-1.json"
  real_time="$elapsed"
  timed "$work/catalog-$scale.txt" "$retryproof" run --client "$client" --time-scale "$scale" \
    --json "$work/catalog-$scale.json"
  scaled="$elapsed"
  grep -h "^time scale" "$work/catalog-$scale.txt" | sed 's/^/  /' || true  # probe and scales
  awk -v c="$name" -v a="$real_time" -v b="$scaled" -v n="$scale" 'BEGIN {
    printf "catalog, %-16s  scale 1 %6.1f s   scale %d %6.1f s   %3.0f%% of scale 1 (goal: <= %s)\n", c, a, n, b, 100 * b / a, (c == "reference" ? "25%" : "40%")
  }'
  echo "  $(python3 "$root/bench/same_verdicts.py" "$work/catalog-1.json" "$work/catalog-$scale.json")"
  echo "  scale 1:  $(python3 "$root/bench/time_split.py" "$work/catalog-1.json")"
  echo "  scale $scale: $(python3 "$root/bench/time_split.py" "$work/catalog-$scale.json")"
}
catalog_figure "Python example" "$python_client"
if command -v node >/dev/null; then
  catalog_figure "Node example" "cmd:node $root/examples/node/correct_client.mjs"
fi
catalog_figure "reference" reference

explore_rate() {  # client scale -> schedules per minute, or a note when it stopped early
  timed "$work/explore.txt" "$retryproof" explore --client "$1" --runs "$runs" --seed 1 \
    --time-scale "$2" --save "$work/counterexample.json"
  if grep -q "$runs schedules: no violation found" "$work/explore.txt"; then
    awk -v r="$runs" -v s="$elapsed" 'BEGIN { printf "%.0f", 60 * r / s }'
  else
    echo "stopped early"
  fi
}
for client in reference "$python_client"; do
  name=$([ "$client" = reference ] && echo "reference" || echo "Python example")
  per_minute_1=$(explore_rate "$client" 1)
  per_minute_n=$(explore_rate "$client" "$scale")
  awk -v c="$name" -v a="$per_minute_1" -v b="$per_minute_n" -v n="$scale" -v r="$runs" 'BEGIN {
    printf "explore, %-16s  scale 1 %6s schedules/min   scale %d %6s   ratio %.1f (goal: >= 4; %d schedules each)\n", c, a, n, b, (a > 0 ? b / a : 0), r
  }'
done
