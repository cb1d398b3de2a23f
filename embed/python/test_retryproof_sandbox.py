"""The Python sandbox against the built retryproof binary ($RETRYPROOF_BINARY): "my code" is a
few lines of urllib creating an order, done right and done naively."""

import http.client
import json
import os
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.parse
import urllib.request

from retryproof_sandbox import Sandbox, SandboxError, Verdicts

ORDER_42 = {"orderId": "order-42", "amount": 120}


def post_order(base_url, key, order):
    request = urllib.request.Request(base_url + "/jobs", data=json.dumps(order).encode(),
                                     method="POST", headers={"Idempotency-Key": key,
                                                             "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def lookup(base_url, key):
    path = "/jobs/by-idempotency-key/" + urllib.parse.quote(key, safe="")
    try:
        with urllib.request.urlopen(base_url + path, timeout=5) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError:
        return None


def create_safely(base_url, order):
    """One key per order; after an answer it never saw, it asks by key before anything."""
    key = "orders:" + order["orderId"]
    try:
        return post_order(base_url, key, order)
    except (OSError, http.client.HTTPException):
        return 200 if lookup(base_url, key) else None


def create_naively(base_url, order, attempts=3):
    """A fresh key on every attempt, and a retry of anything that failed."""
    for attempt in range(1, attempts + 1):
        try:
            status = post_order(base_url, f"orders:{order['orderId']}#{attempt}", order)
            if 200 <= status < 300:
                return status
        except (OSError, http.client.HTTPException):
            pass
    return None


class SandboxTest(unittest.TestCase):
    def test_it_starts_on_a_free_port_and_stops(self):
        sandbox = Sandbox().start()
        try:
            self.assertRegex(sandbox.url, r"^http://127\.0\.0\.1:\d+$")
            self.assertEqual(sandbox.jobs(), [])
            process = sandbox._process
        finally:
            sandbox.stop()
        self.assertEqual(process.returncode, 0, "SIGTERM stops it cleanly")
        with self.assertRaises(OSError):
            urllib.request.urlopen(sandbox.url + "/_test/jobs", timeout=5)

    def test_code_that_looks_up_after_a_drop_keeps_one_job(self):
        with Sandbox() as sandbox:
            sandbox.faults("commit-then-drop")
            self.assertEqual(create_safely(sandbox.url, ORDER_42), 200)
            verdicts = sandbox.verdicts()
            self.assertTrue(verdicts.ok, str(verdicts))
            self.assertEqual(verdicts.status("fail-closed"), "pass")
            self.assertEqual(len(sandbox.jobs()), 1)
            journal = sandbox.journal()
            self.assertEqual([e["outcome"] for e in journal], ["new", "lookup_hit"])
            self.assertEqual(journal[0]["operation"], "order-42")
            self.assertIn("LOOKUP job=", sandbox.log)

    def test_code_that_mints_a_key_per_attempt_is_caught(self):
        with Sandbox() as sandbox:
            sandbox.faults("commit-then-drop")
            self.assertEqual(create_naively(sandbox.url, ORDER_42), 201)
            # It retries at once; declared, so that only what the keys did is judged here.
            verdicts = sandbox.verdicts(policy="min-backoff=0ms")
            self.assertFalse(verdicts.ok)
            failed = {v["id"]: v for v in verdicts.failures}
            self.assertEqual(sorted(failed), ["key-stability", "no-duplicate-effect"])
            self.assertEqual(failed["no-duplicate-effect"]["severity"], "harm")
            self.assertEqual(failed["no-duplicate-effect"]["evidence"], [1, 2])
            self.assertIn("operation orderId=order-42 has 2 jobs", str(verdicts))
            # pytest's `assert verdicts.ok, verdicts` prints repr(), cut to 240 characters.
            shown = repr(verdicts)
            self.assertLessEqual(len(shown), 240)
            self.assertRegex(shown, r"^<Verdicts not ok: (key-stability|no-duplicate-effect)"
                                    r" fail, (key-stability|no-duplicate-effect) fail\n")
            self.assertIn("no-duplicate-effect: fail (harm): operation orderId=order-42 has 2 jobs",
                          shown)
            self.assertNotIn(": pass", shown)
            self.assertTrue(shown.endswith("... (str(verdicts) has it all)>"), shown)
            with self.assertRaises(KeyError):
                verdicts.status("truthful-outcome")  # an outcome line is not traffic

    def test_an_undecided_verdict_shows_its_reason(self):
        report = {"summary": {"notMet": 1}, "scenarios": [{
            "description": "traffic",
            "verdicts": [{"id": "backoff", "status": "pass", "severity": "defect",
                          "explanation": "", "evidence": []},
                         {"id": "fail-closed", "status": "inconclusive", "severity": "harm",
                          "explanation": "seq 3 is missing", "reason": "seq 3 is missing",
                          "evidence": []}],
            "inconclusive": [{"reason": "the journal dropped 1 entry", "verdict": None}]}]}
        verdicts = Verdicts(report)
        self.assertFalse(verdicts.ok)
        self.assertEqual([v["id"] for v in verdicts.inconclusive], ["fail-closed"])
        self.assertEqual(repr(verdicts), "<Verdicts not ok: fail-closed inconclusive\n"
                                         "  fail-closed: inconclusive: seq 3 is missing>")
        self.assertEqual(str(verdicts).splitlines()[1:], [
            "  backoff: pass", "  fail-closed: inconclusive: seq 3 is missing",
            "  inconclusive: the journal dropped 1 entry"])
        report["summary"]["notMet"] = 0
        report["scenarios"][0]["verdicts"].pop()
        self.assertEqual(repr(Verdicts(report)), "<Verdicts ok: 1 judged from traffic>")

    def test_the_declared_policy_is_what_the_verdicts_judge_by(self):
        with Sandbox() as sandbox:
            sandbox.faults("fail-before-commit")
            self.assertEqual(post_order(sandbox.url, "k", ORDER_42), 503)
            self.assertEqual(post_order(sandbox.url, "k", ORDER_42), 201)  # at once
            self.assertEqual(sandbox.verdicts().status("backoff"), "fail")
            # The advice names the helper's word for a promise, not run's --client-policy.
            self.assertIn("declare it: policy=min-backoff=DURATION)", str(sandbox.verdicts()))
            self.assertTrue(sandbox.verdicts(policy="min-backoff=0ms").ok)
            self.assertEqual(sandbox.verdicts(policy="attempts=1,min-backoff=0ms")
                             .status("attempt-budget"), "fail")
            with self.assertRaisesRegex(SandboxError, "invalid_verdicts_query|attempts"):
                sandbox.verdicts(policy="attempts=two")

    def test_a_typo_in_a_fault_is_refused_in_the_providers_words(self):
        with Sandbox() as sandbox:
            with self.assertRaisesRegex(SandboxError,
                                        r'faults\[0\]: unknown fault "comit-then-drop" '
                                        r'\(did you mean "commit-then-drop"\?\)'):
                sandbox.faults("comit-then-drop")
            with self.assertRaisesRegex(SandboxError, r'400: plan: unknown field "fault" '
                                                      r'\(did you mean "faults"\?\)'):
                sandbox.plan({"fault": ["commit-then-drop"]})

    def test_reset_empties_the_jobs_and_the_journal(self):
        with Sandbox() as sandbox:
            post_order(sandbox.url, "k", ORDER_42)
            self.assertEqual(len(sandbox.journal()), 1)
            sandbox.reset()
            self.assertEqual(sandbox.jobs(), [])
            self.assertEqual(sandbox.journal(), [])

    def test_a_missing_binary_says_where_to_look(self):
        with self.assertRaisesRegex(SandboxError, "not an executable file"):
            Sandbox(binary="/nonexistent/retryproof").start()
        saved = os.environ.pop("RETRYPROOF_BINARY", None)
        saved_path = os.environ.get("PATH", "")
        os.environ["PATH"] = "/nonexistent"
        try:
            with self.assertRaisesRegex(SandboxError, "RETRYPROOF_BINARY"):
                Sandbox().start()
        finally:
            os.environ["PATH"] = saved_path
            if saved is not None:
                os.environ["RETRYPROOF_BINARY"] = saved

    def test_the_options_the_sandbox_passes_itself_are_refused_in_args(self):
        for args, says in [(["--port", "4040"], "--port is the sandbox's own: .*sandbox.url"),
                           (["--seed=7"], "--seed is the sandbox's own: pass seed=N"),
                           (["--api", "stripe", "--operation-field", "id"],
                            "--operation-field is the sandbox's own: pass operation_field=")]:
            with self.assertRaisesRegex(SandboxError, "^args: " + says):
                Sandbox(args=args)

    def test_a_provider_that_cannot_start_says_why(self):
        with self.assertRaisesRegex(SandboxError, "exited \\(2\\) before printing its URL.*--plan"):
            Sandbox(args=["--plan", "/nonexistent/plan.json"]).start()

    def test_it_waits_on_the_health_check_which_needs_no_token(self):
        with Sandbox(args=["--control-token", "T"]) as sandbox:
            with self.assertRaisesRegex(SandboxError, "401"):
                sandbox.jobs()  # the rest of the control plane still needs the token

    def test_a_url_that_never_answers_the_health_check_says_so(self):
        with tempfile.TemporaryDirectory() as directory:
            fake = os.path.join(directory, "retryproof")
            with open(fake, "w") as script:  # prints a URL nobody listens on, then waits
                script.write("#!/bin/sh\necho http://127.0.0.1:1\nexec sleep 30\n")
            os.chmod(fake, 0o755)
            with self.assertRaisesRegex(SandboxError, "did not answer 200 within 0.5 s"):
                Sandbox(binary=fake, start_timeout=0.5).start()


if __name__ == "__main__":
    unittest.main()
