"""The rehearsal of docs/rehearsal.md, run both ways against the built retryproof binary
($RETRYPROOF_BINARY): the naive service is caught by orderId, the fixed one is clean."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def rehearse(*flags):
    out = tempfile.mkdtemp(prefix="rehearsal-test-")
    run = subprocess.run([sys.executable, os.path.join(HERE, "rehearse.py"), "--out", out, *flags],
                         capture_output=True, text=True, timeout=120)
    with open(os.path.join(out, "judge.json"), encoding="utf-8") as report:
        return run, json.load(report)["scenarios"][0]


def verdict(scenario, verdict_id):
    return next(v for v in scenario["verdicts"] if v["id"] == verdict_id)


class RehearsalTest(unittest.TestCase):
    def test_the_naive_service_is_caught_by_order(self):
        run, judged = rehearse()
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        duplicate = verdict(judged, "no-duplicate-effect")
        self.assertEqual(duplicate["status"], "fail")
        # The dropped answer of order-2 was retried under a fresh key: a second shipment.
        # (A concurrent duplicate of its event, if the race went that way, adds more.)
        self.assertRegex(duplicate["explanation"], r"operation orderId=order-2 has [2-9] jobs")
        self.assertEqual(verdict(judged, "key-stability")["status"], "fail")

    def test_the_fixed_service_is_clean(self):
        run, judged = rehearse("--fixed")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(verdict(judged, "no-duplicate-effect")["status"], "pass")
        self.assertEqual(verdict(judged, "fail-closed")["status"], "pass",
                         "after order-2's dropped answer it asked by key first")
        self.assertEqual(len(judged["invocations"]), 4, "one operation per order")


if __name__ == "__main__":
    unittest.main()
