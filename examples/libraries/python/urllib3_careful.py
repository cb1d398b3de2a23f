#!/usr/bin/python3
"""A careful client on urllib3's own Retry (Debian's 1.26), with a backoff of its own: the safe
pattern of careful.py, with Retry doing every retry, configured as its docs show
(PoolManager(retries=Retry(...))). Retry retries POST only where told: the statuses that prove
nothing was stored (status_forcelist 409, 429, 503, with POST added to allowed_methods) and a
connection never made (connect errors); read=0 and other=0 make every error after the request
was sent (a timeout, a drop, a reset, a body cut short) come back at once, to be looked up.
Retry-After is honoured as Retry does by default (413, 429, 503).

1.26's own backoff waits nothing before the second try (get_backoff_time returns 0) and has no
jitter (2.x has backoff_jitter); JitteredRetry overrides get_backoff_time with equal jitter on
0.1 s * 2^(n-1): 50-100 ms, 100-200 ms, ... The three attempts are shared between the tries
before and after a lookup that found nothing, which waits the same backoff.
Judge it with --client-policy attempts=3,min-backoff=50ms,timeout=1s (lookup-first).
Debian's python3-urllib3; run it with /usr/bin/python3."""
import json
import os
import random
import sys
import time
import traceback

import urllib3
from urllib3.util.retry import Retry

from careful import Definitive, Intent, LookupFailed, PreCommit, classify, lookup, pool
from contract import log, operation, report

ATTEMPTS = 3


def backoff_s(failures):
    """Equal jitter on 0.1 s * 2^(n-1), capped at 2 s: half of each step fixed, half random."""
    step = min(2.0, 0.1 * 2 ** (failures - 1))
    return step / 2 + random.uniform(0, step / 2)


class JitteredRetry(Retry):
    """Retry with the backoff above in place of 1.26's (none before the second try, no jitter)."""

    def get_backoff_time(self):
        return backoff_s(len(self.history))

    def increment(self, *args, **kwargs):
        global failed
        failed += 1  # Retry keeps no count a caller can read when it raises
        return super().increment(*args, **kwargs)


base_url, key, payload = operation()
http = pool()
intent = Intent(os.environ.get("RETRYPROOF_STATE_DIR") or ".intents", key, payload)
earlier = intent.earlier()
sent = 0          # POSTs so far, every try of every Retry
failed = 0        # tries a Retry counted as failed
in_doubt = False  # a request timed out or met one in flight: a 404 later is no proof of none


def post():
    """POST under a Retry with the attempts left: a job id, or an exception saying what is known."""
    global sent, in_doubt
    before = failed
    retries = JitteredRetry(total=ATTEMPTS - sent - 1, read=0, other=0,
                            allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"POST"},
                            status_forcelist=[409, 429, 503], raise_on_status=False)
    try:
        response = http.request(
            "POST", f"{base_url}/jobs", body=json.dumps(payload), retries=retries,
            headers={"Content-Type": "application/json", "Idempotency-Key": key})
    except urllib3.exceptions.MaxRetryError as error:  # every try of this Retry failed
        sent += failed - before
        log(f"POST: {error.reason!r} after {sent} attempts")
        if isinstance(error.reason, urllib3.exceptions.NewConnectionError):  # never connected
            raise PreCommit(type(error.reason).__name__) from error
        in_doubt |= isinstance(error.reason, urllib3.exceptions.ReadTimeoutError)
        return find(type(error.reason).__name__)
    history = response.retries.history  # the tries before the last, which answered
    sent += len(history) + 1
    log(f"POST: HTTP {response.status} after {sent} attempts ({', '.join(str(h.status or h.error) for h in history)})")
    in_doubt |= response.status == 409 or any(h.status == 409 for h in history)
    return classify(response) or find(f"HTTP {response.status}")


def find(reason):
    """After an outcome the client could not see: the key's job, or PreCommit (not stored)."""
    job = lookup(http, base_url, key)
    if job and earlier == "other-payload":
        raise LookupFailed(f"{job} is stored under this key, which an earlier run sent with another payload")
    if job is None:
        raise PreCommit(f"{reason}; the lookup found nothing stored")
    return job


def main():
    if isinstance(earlier, tuple):  # confirmed by an earlier run: send nothing
        return {"outcome": "succeeded", "jobId": earlier[1]}
    try:
        if earlier == "sent":  # an earlier run sent it and never learnt the outcome
            job = lookup(http, base_url, key)
            if job:
                intent.save(job)
                return {"outcome": "succeeded", "jobId": job}
        intent.save()
        while True:
            try:
                job = post()
                break
            except PreCommit as last:
                if sent >= ATTEMPTS:
                    raise
                log(f"{last}; the same key again")  # after the same backoff as Retry's
                time.sleep(backoff_s(sent))
    except Definitive as refused:
        return {"outcome": "failed", "reason": str(refused)}
    except LookupFailed as error:  # fail closed
        return {"outcome": "unknown", "idempotencyKey": key, "reason": str(error)}
    except PreCommit as last:  # the budget is spent: a 503 may follow a commit, so ask once more
        try:
            job = find(str(last))
        except (LookupFailed, PreCommit) as error:
            gave_up = isinstance(error, PreCommit) and not in_doubt
            return ({"outcome": "failed", "reason": f"not stored after {sent} attempts ({last})"} if gave_up
                    else {"outcome": "unknown", "idempotencyKey": key, "reason": str(error)})
    intent.save(job)
    return {"outcome": "succeeded", "jobId": job}


try:
    report(main())
except Exception:  # never die without an outcome line
    traceback.print_exc(file=sys.stderr)
    report({"outcome": "unknown", "idempotencyKey": key, "reason": "unexpected client error"})
