#!/usr/bin/env python3
"""Where a `retryproof run --json` report's wall time went, summed over its invocations in
real seconds: starting the client (from its start to its first request, which no time scale
compresses) and the rest of its run (its requests, waits and timeouts, which the scale
does). Usage: time_split.py REPORT SCALE [NAMES]; NAMES (comma-separated) are scenarios the
run judged at real time instead, as its last line lists them. Prints one line."""
import json
import sys


def main(path, scale, real_time=()):
    with open(path, encoding="utf-8") as report:
        scenarios = json.load(report)["scenarios"]
    start = rest = 0.0
    for scenario in scenarios:
        at = 1 if scenario["name"] in real_time else scale
        journal = scenario["journal"]
        for run in scenario["invocations"]:
            entries = journal[run["firstSeq"] - 1:run["lastSeq"]]
            first = entries[0]["atMs"] if entries else run["endedAtMs"]
            start += (first - run["startedAtMs"]) / at / 1000
            rest += (run["endedAtMs"] - first) / at / 1000
    print(f"clients starting {start:5.1f} s, running {rest:5.1f} s (summed over invocations)")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3].split(", ") if len(sys.argv) > 3 else ())
