#!/usr/bin/env python3
"""Compares two `retryproof run --json` reports scenario by scenario: the same verdicts
(each verdict's id and status) in each scenario? Prints one line saying so, or naming the
scenarios that differ and how. Used by bench/time_scale.sh on scale 1 against scale N."""
import json
import sys


def verdicts(path):
    with open(path, encoding="utf-8") as report:
        results = json.load(report)["scenarios"]
    return {r["name"]: [(v["id"], v["status"]) for v in r["verdicts"]] for r in results}


def main(baseline_path, other_path):
    baseline, other = verdicts(baseline_path), verdicts(other_path)
    differ = []
    for name, expected in baseline.items():
        got = other.get(name)
        if got != expected:
            changes = [f"{i} {a}->{b}" for (i, a), (_, b) in zip(expected, got or [])
                       if a != b] if got else ["missing"]
            differ.append(f"{name} ({', '.join(changes)})")
    if differ:
        print(f"verdicts differ in {len(differ)} of {len(baseline)} scenarios: " + "; ".join(differ))
    else:
        print(f"same verdicts in {len(baseline)} of {len(baseline)} scenarios")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
