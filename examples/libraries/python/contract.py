"""The external-client contract (docs/scenarios.md), shared by the library clients here.

What to send comes from the environment; exactly one outcome line goes to stdout. Nothing
in this file retries: each client lets its library do that."""
import json
import os
import sys
import time


def operation():
    op = json.loads(os.environ["RETRYPROOF_OPERATION"])
    base_url = os.environ["RETRYPROOF_BASE_URL"].rstrip("/")
    # The key is derived once, from business identity, and sent on every attempt.
    return base_url, op["operationId"], op.get("payload", {})


def outcome_of(status, data, key):
    """A final HTTP answer, after the library's retries, as an outcome."""
    try:
        body = json.loads(data)
    except (TypeError, ValueError):
        body = None
    body = body if isinstance(body, dict) else {}
    if 200 <= status < 300 and isinstance(body.get("id"), str):
        return {"outcome": "succeeded", "jobId": body["id"]}
    if 400 <= status < 500 and status not in (408, 409, 429):
        return {"outcome": "failed", "reason": f"{status} {body.get('error', '')}".strip()}
    return {"outcome": "unknown", "idempotencyKey": key, "reason": f"HTTP {status}"}


def unknown_after(error, key):
    """No answer at all after the retries: it may have committed."""
    return {"outcome": "unknown", "idempotencyKey": key, "reason": f"{type(error).__name__}: {error}"}


def report(outcome):
    print(json.dumps(outcome), flush=True)


def log(message):
    print(f"[{time.monotonic():.3f}] {message}", file=sys.stderr, flush=True)
