#!/usr/bin/env python3
"""How long a fleet's clients took to start, from a `retryproof run --json` report: for
each invocation, from its process's start (startedAtMs) to its first request reaching the
provider (the journal entry at firstSeq), which is the program's own start-up plus its
first connect. Prints one line: median, p90 and max in ms, and how many clients it read.
Usage: fleet_starts.py REPORT"""
import json
import sys


def main(path):
    with open(path, encoding="utf-8") as report:
        scenarios = json.load(report)["scenarios"]
    starts = []
    for scenario in scenarios:
        arrived = {entry["seq"]: entry["atMs"] for entry in scenario["journal"]}
        for run in scenario["invocations"]:
            if run["firstSeq"] not in arrived or run["lastSeq"] < run["firstSeq"]:
                continue  # a client that sent nothing has no start to measure
            starts.append(arrived[run["firstSeq"]] - run["startedAtMs"])
    if not starts:
        print("start -")
        return
    starts.sort()
    at = lambda q: starts[min(len(starts) - 1, int(q * len(starts)))]
    print(f"start median {at(0.5)} ms, p90 {at(0.9)} ms, max {starts[-1]} ms ({len(starts)} clients)")


if __name__ == "__main__":
    main(sys.argv[1])
