"""A session client in a few lines of Python, with the standard library only (docs/sessions.md).

retryproof starts your program once per service instance and sends it operations on standard
input, one JSON line each, while earlier ones still run. ``serve(handle)`` reads them, runs
each in a thread pool, and writes each answer, tagged with its operation's id, as soon as it
is done::

    from retryproof_session import serve

    orders = OrdersClient(os.environ["RETRYPROOF_BASE_URL"])   # one for every call

    def handle(operation_id, payload):
        job = orders.create(payload, idempotency_key=operation_id)
        return "succeeded", job["id"]

    serve(handle)

``handle(operation_id, payload)`` returns ``("succeeded", job_id)``, ``("failed", reason)`` or
``("unknown", reason)``; an exception it raises is answered ``unknown`` (nobody can prove what
happened), with its traceback on standard error. A line that cannot be read is named on
standard error, and answered ``failed`` when its id could be read.
"""

import concurrent.futures
import json
import sys
import threading
import traceback

__all__ = ["serve", "OUTCOMES"]

OUTCOMES = ("succeeded", "failed", "unknown")


def _outcome_line(answer):
    """The outcome line of what a handler returned, or a ValueError saying what is wrong."""
    if not (isinstance(answer, tuple) and len(answer) == 2 and answer[0] in OUTCOMES):
        raise ValueError(f"a handler returns (outcome, job id or reason), not {answer!r}")
    outcome, detail = answer
    if outcome == "succeeded":
        return {"outcome": outcome, "jobId": str(detail)}
    return {"outcome": outcome, "reason": str(detail)}


def _read_operation(text):
    """(id, operation id, payload, problem): problem is None when the line is whole."""
    try:
        line = json.loads(text)
    except ValueError:
        return None, None, None, "not JSON"
    if not isinstance(line, dict):
        return None, None, None, "not a JSON object"
    tag = line.get("id")
    if not isinstance(tag, str) or not tag:
        return None, None, None, '"id" must be a non-empty string'
    operation_id = line.get("operationId")
    if not isinstance(operation_id, str) or not operation_id:
        return tag, None, None, '"operationId" must be a non-empty string'
    payload = line.get("payload", {})
    if not isinstance(payload, dict):
        return tag, None, None, '"payload" must be a JSON object'
    return tag, operation_id, payload, None


def serve(handle, max_in_flight=64, input=None, output=None, errors=None):
    """Serves operations until standard input ends, then finishes those in flight. Returns 0."""
    input = input or sys.stdin
    output = output or sys.stdout
    errors = errors or sys.stderr
    lock = threading.Lock()

    def write(tag, line):
        text = json.dumps({"id": tag, **line})
        with lock:
            output.write(text + "\n")
            output.flush()

    def note(text):
        with lock:
            errors.write(f"session: {text}\n")
            errors.flush()

    def run(tag, operation_id, payload):
        try:
            line = _outcome_line(handle(operation_id, payload))
        except Exception as error:  # never an operation without its answer: unknown
            note(f"{tag}: {traceback.format_exc()}")
            line = {"outcome": "unknown", "reason": f"client error: {error}"}
        write(tag, line)

    seen = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max_in_flight) as pool:
        number = 0
        for text in iter(input.readline, ""):  # a line as soon as it comes, not a buffer's worth
            number += 1
            if not text.strip():
                continue
            tag, operation_id, payload, problem = _read_operation(text)
            if tag is not None and tag in seen:
                note(f'input line {number}: the id "{tag}" was sent before; ids tag one line each')
                continue
            seen.add(tag)
            if problem is not None:
                note(f"input line {number}: {problem} ({text.strip()[:200]})")
                if tag is not None:
                    write(tag, {"outcome": "failed", "reason": f"malformed operation: {problem}"})
                continue
            pool.submit(run, tag, operation_id, payload)
    return 0  # leaving the with: every operation in flight has finished and been answered
