#!/usr/bin/env python3
"""Where a `retryproof run --json` report's wall time went, summed over its invocations in
real seconds: starting the client (from its start to its first request, which no time scale
compresses) and the rest of its run (its requests, waits and timeouts, which the scale
does), each scenario at the scale it ran at (its "scale"). Also how many scenarios ran at
each scale. Usage: time_split.py REPORT. Prints one line."""
import collections
import json
import sys


def main(path):
    with open(path, encoding="utf-8") as report:
        scenarios = json.load(report)["scenarios"]
    start = rest = 0.0
    scales = collections.Counter()
    for scenario in scenarios:
        at = scenario["scale"]
        scales[at] += 1
        journal = scenario["journal"]
        for run in scenario["invocations"]:
            entries = journal[run["firstSeq"] - 1:run["lastSeq"]]
            first = entries[0]["atMs"] if entries else run["endedAtMs"]
            start += (first - run["startedAtMs"]) / at / 1000
            rest += (run["endedAtMs"] - first) / at / 1000
    ran_at = ", ".join(f"{count} at {scale}" for scale, count in sorted(scales.items(), reverse=True))
    print(f"clients starting {start:5.1f} s, running {rest:5.1f} s (summed over invocations);"
          f" scenarios {ran_at}")


if __name__ == "__main__":
    main(sys.argv[1])
