"""retryproof_session.serve() on text streams: tagged answers, malformed lines, a handler that
raises, and operations run at once (five handlers meet at a barrier only if they run together)."""

import io
import json
import threading
import unittest

from retryproof_session import serve


def lines_of(*operations):
    return io.StringIO("".join(
        (op if isinstance(op, str) else json.dumps(op)) + "\n" for op in operations))


def served(handle, stdin, **options):
    output, errors = io.StringIO(), io.StringIO()
    code = serve(handle, input=stdin, output=output, errors=errors, **options)
    answers = {}
    for line in output.getvalue().splitlines():
        answer = json.loads(line)
        assert answer["id"] not in answers, f"a second answer for {answer['id']}"
        answers[answer.pop("id")] = answer
    return code, answers, errors.getvalue()


class ServeTest(unittest.TestCase):
    def test_each_operation_is_answered_once_tagged_with_its_id(self):
        code, answers, _ = served(lambda op, payload: ("succeeded", f"job-{op}-{payload['n']}"),
                                  lines_of(*({"id": f"a-{n}", "operationId": f"op-{n}",
                                              "payload": {"n": n}} for n in range(10))))
        self.assertEqual(code, 0)
        self.assertEqual(answers, {f"a-{n}": {"outcome": "succeeded", "jobId": f"job-op-{n}-{n}"}
                                   for n in range(10)})

    def test_a_handler_that_raises_is_answered_unknown(self):
        def handle(operation_id, payload):
            raise ConnectionError("the provider went away")
        _, answers, errors = served(handle, lines_of({"id": "x", "operationId": "op"}))
        self.assertEqual(answers["x"], {"outcome": "unknown",
                                        "reason": "client error: the provider went away"})
        self.assertIn("ConnectionError", errors)

    def test_malformed_lines_are_named_and_answered_failed_when_their_id_is_read(self):
        _, answers, errors = served(
            lambda op, payload: ("failed", "validation"),
            lines_of("not json", "[1]", {"id": "p", "operationId": "op", "payload": 3},
                     {"id": "q"}, {"id": "ok", "operationId": "op"}, {"id": "ok", "operationId": "op"}))
        self.assertEqual(answers, {
            "p": {"outcome": "failed", "reason": 'malformed operation: "payload" must be a JSON object'},
            "q": {"outcome": "failed", "reason": 'malformed operation: "operationId" must be a non-empty string'},
            "ok": {"outcome": "failed", "reason": "validation"}})
        for said in ("input line 1: not JSON", "input line 2: not a JSON object",
                     'input line 6: the id "ok" was sent before'):
            self.assertIn(said, errors)

    def test_operations_run_at_once(self):
        barrier = threading.Barrier(5, timeout=30)

        def handle(operation_id, payload):
            barrier.wait()  # BrokenBarrierError, answered unknown, if they ran one by one
            return "succeeded", "job-" + operation_id
        _, answers, errors = served(handle, lines_of(*({"id": str(n), "operationId": str(n)}
                                                       for n in range(5))))
        self.assertEqual({answer["outcome"] for answer in answers.values()}, {"succeeded"}, errors)


if __name__ == "__main__":
    unittest.main()
