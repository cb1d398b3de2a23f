#!/usr/bin/python3
"""tenacity around urllib3 (urllib3's own retries off), as tenacity's README shows:
@retry(stop=stop_after_attempt(3), wait=wait_random_exponential(multiplier=1, max=60),
retry=retry_if_exception_type(...)), the README's wait for "distributed services and other
remote endpoints" (full jitter: a random wait up to 2^n seconds). It retries connection
errors, timeouts, 429 and 5xx; a 4xx is returned, not retried.
Debian's python3-tenacity and python3-urllib3; run it with /usr/bin/python3."""
import json

import urllib3
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from contract import log, operation, outcome_of, unknown_after, report


class Retryable(Exception):
    def __init__(self, response):
        super().__init__(f"HTTP {response.status}")
        self.response = response


base_url, key, payload = operation()
http = urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(total=1.0))


@retry(stop=stop_after_attempt(3), wait=wait_random_exponential(multiplier=1, max=60),
       retry=retry_if_exception_type((urllib3.exceptions.HTTPError, Retryable)), reraise=True,
       before_sleep=lambda state: log(f"attempt {state.attempt_number} failed: {state.outcome.exception()!r}"))
def create_job():
    response = http.request(
        "POST", f"{base_url}/jobs", body=json.dumps(payload),
        headers={"Content-Type": "application/json", "Idempotency-Key": key})
    if response.status == 429 or response.status >= 500:
        raise Retryable(response)
    return response


try:
    response = create_job()
    report(outcome_of(response.status, response.data, key))
except Retryable as error:
    report(outcome_of(error.response.status, error.response.data, key))
except urllib3.exceptions.HTTPError as error:
    report(unknown_after(error, key))
