#!/usr/bin/python3
"""A careful client on tenacity around urllib3 (urllib3's own retries off): the safe pattern
of careful.py, with tenacity doing every retry, configured as its README shows:
@retry(stop=stop_after_attempt(3), wait=..., retry=retry_if_exception_type(...)). Its wait is
the README's sum of waits, wait_fixed(0.05) + wait_random_exponential(multiplier=0.2, max=2)
(a 50 ms floor under full jitter), and never shorter than a 429's Retry-After. Only PreCommit
is retried; an unseen outcome is looked up inside the attempt, before anything else.
Judge it with --client-policy attempts=3,min-backoff=50ms,timeout=1s (lookup-first).
Debian's python3-tenacity and python3-urllib3; run it with /usr/bin/python3."""
import json
import os
import sys
import traceback

import urllib3
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_fixed, wait_random_exponential

from careful import Definitive, Intent, LookupFailed, PreCommit, classify, lookup, pool
from contract import log, operation, report

base_url, key, payload = operation()
http = pool(retries=False)
intent = Intent(os.environ.get("RETRYPROOF_STATE_DIR") or ".intents", key, payload)
earlier = intent.earlier()
in_doubt = False  # a request timed out or met one in flight: a 404 later is no proof of none
jitter = wait_fixed(0.05) + wait_random_exponential(multiplier=0.2, max=2)


def wait_retry_after_or_jitter(state):
    return max(getattr(state.outcome.exception(), "retry_after_s", 0.0), jitter(state))


def find(reason):
    """After an outcome this attempt could not see: the key's job, or PreCommit (not stored)."""
    job = lookup(http, base_url, key)
    if job and earlier == "other-payload":
        raise LookupFailed(f"{job} is stored under this key, which an earlier run sent with another payload")
    if job is None:
        raise PreCommit(f"{reason}; the lookup found nothing stored")
    return job


@retry(stop=stop_after_attempt(3), wait=wait_retry_after_or_jitter,
       retry=retry_if_exception_type(PreCommit), reraise=True,
       before_sleep=lambda s: log(f"attempt {s.attempt_number}: {s.outcome.exception()}; waiting {s.next_action.sleep:.3f} s"))
def create_or_find():
    global in_doubt
    try:
        response = http.request(
            "POST", f"{base_url}/jobs", body=json.dumps(payload),
            headers={"Content-Type": "application/json", "Idempotency-Key": key})
    except urllib3.exceptions.NewConnectionError as error:  # no connection: nothing was sent
        raise PreCommit(type(error).__name__) from error
    except urllib3.exceptions.HTTPError as error:  # a timeout, a drop, a reset, a body cut short
        in_doubt |= isinstance(error, urllib3.exceptions.ReadTimeoutError)
        return find(type(error).__name__)
    in_doubt |= response.status == 409
    return classify(response) or find(f"HTTP {response.status}")


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
        job = create_or_find()
    except Definitive as refused:
        return {"outcome": "failed", "reason": str(refused)}
    except LookupFailed as error:  # fail closed
        return {"outcome": "unknown", "idempotencyKey": key, "reason": str(error)}
    except PreCommit as last:  # the budget is spent: a 503 may follow a commit, so ask once more
        try:
            job = find(str(last))
        except (LookupFailed, PreCommit) as error:
            gave_up = isinstance(error, PreCommit) and not in_doubt
            return ({"outcome": "failed", "reason": f"not stored after 3 attempts ({last})"} if gave_up
                    else {"outcome": "unknown", "idempotencyKey": key, "reason": str(error)})
    intent.save(job)
    return {"outcome": "succeeded", "jobId": job}


try:
    report(main())
except Exception:  # never die without an outcome line
    traceback.print_exc(file=sys.stderr)
    report({"outcome": "unknown", "idempotencyKey": key, "reason": "unexpected client error"})
