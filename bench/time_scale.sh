#!/usr/bin/env bash
# Compressed time, each figure beside its baseline from the same run (--time-scale 1):
#   1. the catalog's wall time (scenarios/catalog, the goal's) and the storm set's
#      (scenarios/storm, fleets: no goal, shown for what it costs) against
#      examples/python/correct_client.py, the Node example and the reference client, whether
#      their verdicts are the same scenario by scenario, and the scales they ran at;
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
set_figure() {  # set name client: a scenario set at scale 1 and at $scale, and what differs
  local set="$1" name="$2" client="$3" real_time scaled label goal
  timed "$work/$set-1.txt" "$retryproof" run "$root/scenarios/$set" --client "$client" \
    --time-scale 1 --json "$work/$set-1.json"
  real_time="$elapsed"
  timed "$work/$set-$scale.txt" "$retryproof" run "$root/scenarios/$set" --client "$client" \
    --time-scale "$scale" --json "$work/$set-$scale.json"
  scaled="$elapsed"
  grep -h "^time scale" "$work/$set-$scale.txt" | sed 's/^/  /' || true  # probe and scales
  if [ "$set" = catalog ]; then
    label=catalog goal="goal: <= $([ "$name" = reference ] && echo 25 || echo 40)%"
  else  # a fleet's clients share the cores, which bounds its scale (bench/results/time_scale.md)
    label="storm set" goal="no goal: fleets"
  fi
  awk -v s="$label" -v c="$name" -v a="$real_time" -v b="$scaled" -v n="$scale" -v g="$goal" 'BEGIN {
    printf "%s, %-16s  scale 1 %6.1f s   scale %d %6.1f s   %3.0f%% of scale 1 (%s)\n", s, c, a, n, b, 100 * b / a, g
  }'
  echo "  $(python3 "$root/bench/same_verdicts.py" "$work/$set-1.json" "$work/$set-$scale.json")"
  echo "  scale 1:  $(python3 "$root/bench/time_split.py" "$work/$set-1.json")"
  echo "  scale $scale: $(python3 "$root/bench/time_split.py" "$work/$set-$scale.json")"
}
for set in catalog storm; do
  set_figure "$set" "Python example" "$python_client"
  if command -v node >/dev/null; then
    set_figure "$set" "Node example" "cmd:node $root/examples/node/correct_client.mjs"
  fi
  set_figure "$set" reference reference
done

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
