"""The rehearsal of docs/rehearsal.md, rehearse.sh run both ways against the built retryproof
binary ($RETRYPROOF_BINARY): the service's calls go through the proxy, with its seeded plan,
in front of a provider standing in for the sandbox; the naive service is caught by orderId,
the fixed one is clean."""
import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class Rehearsal:
    def __init__(self, *flags):
        self.out = tempfile.mkdtemp(prefix="rehearsal-test-")
        self.run = subprocess.run(["bash", os.path.join(HERE, "rehearse.sh"), "--out", self.out,
                                   *flags], capture_output=True, text=True, timeout=120)

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as saved:
            return json.load(saved)

    def judged(self):
        return self.read("judge.json")["scenarios"][0]

    def verdict(self, verdict_id, scenario=None):
        scenario = scenario or self.judged()
        return next(v for v in scenario["verdicts"] if v["id"] == verdict_id)

    def says(self):
        return self.run.stdout + self.run.stderr

    def jobs_by_order(self):
        counts = {}
        for job in self.read("sandbox-jobs.json")["jobs"]:
            counts[job["orderId"]] = counts.get(job["orderId"], 0) + 1
        return counts


class RehearsalTest(unittest.TestCase):
    def check_the_proxy_journaled_by_order(self, rehearsal):
        entries = rehearsal.read("journal.json")["entries"]
        creates = [e for e in entries if e["kind"] == "create"]
        self.assertTrue(creates)
        self.assertTrue(all(e["operation"] for e in creates), "--operation-field orderId")
        dropped = [e for e in creates if e["fault"] == "commit-then-drop"]
        self.assertEqual([e["operation"] for e in dropped], ["order-2"], "plan.json's rule")
        # The upstream committed the dropped create: the client got nothing, the sandbox a job.
        self.assertEqual(dropped[0]["upstreamStatus"], 201)
        self.assertIsNone(dropped[0]["status"])
        sandbox_ids = {job["id"] for job in rehearsal.read("sandbox-jobs.json")["jobs"]}
        self.assertIn(dropped[0]["jobId"], sandbox_ids)

    def check_live_verdicts_are_the_judges(self, rehearsal):
        live = rehearsal.read("verdicts.json")["scenarios"][0]
        self.assertEqual([(v["id"], v["status"]) for v in live["verdicts"]],
                         [(v["id"], v["status"]) for v in rehearsal.judged()["verdicts"]],
                         "GET /_test/verdicts on the proxy judges as retryproof judge")

    def test_the_naive_service_is_caught_by_order(self):
        rehearsal = Rehearsal()
        self.assertEqual(rehearsal.run.returncode, 1, rehearsal.says())
        duplicate = rehearsal.verdict("no-duplicate-effect")
        self.assertEqual(duplicate["status"], "fail")
        # The dropped answer of order-2 was retried under a fresh key: a second shipment.
        # Chaos, drawn from the service's random keys, may add duplicates of other orders,
        # and the explanation names the first of them: that it speaks of orders is checked
        # there, order-2's duplicate in the sandbox.
        self.assertRegex(duplicate["explanation"], r"operation orderId=order-\d+ has [2-9] jobs")
        self.assertGreaterEqual(rehearsal.jobs_by_order()["order-2"], 2,
                                "the sandbox holds the duplicate shipment")
        self.assertEqual(rehearsal.verdict("key-stability")["status"], "fail")
        self.check_the_proxy_journaled_by_order(rehearsal)
        self.check_live_verdicts_are_the_judges(rehearsal)

    def test_the_fixed_service_is_clean(self):
        rehearsal = Rehearsal("--fixed")
        self.assertEqual(rehearsal.run.returncode, 0, rehearsal.says())
        judged = rehearsal.judged()
        self.assertTrue(all(v["status"] in ("pass", "n/a") for v in judged["verdicts"]), judged)
        self.assertEqual(rehearsal.verdict("fail-closed")["status"], "pass",
                         "after order-2's dropped answer it asked by key first")
        self.assertEqual(len(judged["invocations"]), 4, "one operation per order")
        self.assertEqual(rehearsal.jobs_by_order(),
                         {"order-1": 1, "order-2": 1, "order-3": 1, "order-4": 1},
                         "one shipment per order, whatever the faults and the duplicates")
        self.check_the_proxy_journaled_by_order(rehearsal)
        self.check_live_verdicts_are_the_judges(rehearsal)
        # Stable keys meet the same seeded chaos on every run: docs/rehearsal.md's timeline.
        creates = [(e["operation"], e["fault"]) for e in rehearsal.read("journal.json")["entries"]
                   if e["kind"] == "create"]
        self.assertEqual(creates, [("order-1", "none"), ("order-2", "commit-then-drop"),
                                   ("order-3", "fail-before-commit"),
                                   ("order-3", "commit-then-500"),
                                   ("order-4", "commit-then-500")])


if __name__ == "__main__":
    unittest.main()
