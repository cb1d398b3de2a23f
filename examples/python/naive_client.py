#!/usr/bin/env python3
"""A COUNTER-EXAMPLE: the retry loop most code bases start with. Do not copy it.

It honours the external-client contract (one JSON outcome line on stdout), so
retryproof can run it, and it is wrong in the classic ways, on purpose:

  BUG 1  a fresh uuid4 idempotency key on every attempt: the provider cannot tell a retry
         from a new order, so a retry after a commit creates a second job
         (caught by no-duplicate-effect and key-stability);
  BUG 2  blind retries on any error: a timeout, a dropped connection or a 500 is
         re-sent without looking the key up first (caught by fail-closed);
  BUG 3  a fixed 10 ms sleep between attempts: no backoff, no jitter, no Retry-After
         (caught by backoff and retry-after);
  BUG 4  "an exception means it failed": an outcome it never saw is reported as failed
         although the provider may hold the job (caught by truthful-outcome);
  BUG 5  no durable intent: after a crash it remembers nothing and starts over.

examples/python/correct_client.py is the same job done right.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid


def main():
    operation = json.loads(os.environ["RETRYPROOF_OPERATION"])
    body = json.dumps(operation.get("payload", {})).encode("utf-8")
    url = os.environ["RETRYPROOF_BASE_URL"] + "/jobs"
    reason = "no attempt made"
    for attempt in range(1, 4):  # up to 3 attempts (this part, at least, is bounded)
        key = str(uuid.uuid4())  # BUG 1: a new key per attempt, not per logical operation
        request = urllib.request.Request(
            url, data=body, method="POST",
            headers={"Idempotency-Key": key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=1) as response:
                job = json.loads(response.read())
                print(json.dumps({"outcome": "succeeded", "jobId": job["id"]}), flush=True)
                return
        except Exception as error:  # BUG 2: every error is "retry it", 4xx and ambiguous alike
            reason = f"attempt {attempt}: {error!r}"
            print(f"[naive-client] {reason}; retrying", file=sys.stderr, flush=True)
            time.sleep(0.01)  # BUG 3: a short fixed sleep, not a backoff
    # BUG 4: never looks the key up; "we got errors" is reported as "nothing happened".
    print(json.dumps({"outcome": "failed", "reason": reason}), flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # still print a valid outcome line (the same wrong guess)
        print(json.dumps({"outcome": "failed", "reason": repr(error)}), flush=True)
