#!/usr/bin/python3
"""urllib3's own Retry, as its docs show: PoolManager(retries=Retry(total=..., backoff_factor=...,
status_forcelist=...)). Retry leaves POST out of DEFAULT_ALLOWED_METHODS (not idempotent); the
documented way to retry one is to add it to allowed_methods. Everything else is Retry's
default: Retry-After honoured on 413 429 503, connect and read errors retried, and the
documented backoff: none before the second try, then backoff_factor * 2^(n-1).
Debian's python3-urllib3 (1.26); run it with /usr/bin/python3."""
import json

import urllib3
from urllib3.util.retry import Retry

from contract import operation, outcome_of, unknown_after, report

base_url, key, payload = operation()
retries = Retry(
    total=3,
    allowed_methods=Retry.DEFAULT_ALLOWED_METHODS | {"POST"},
    status_forcelist=[429, 500, 503],
    backoff_factor=0.2,
)
http = urllib3.PoolManager(retries=retries, timeout=urllib3.Timeout(total=1.0))
try:
    response = http.request(
        "POST", f"{base_url}/jobs", body=json.dumps(payload),
        headers={"Content-Type": "application/json", "Idempotency-Key": key})
    report(outcome_of(response.status, response.data, key))
except urllib3.exceptions.HTTPError as error:  # MaxRetryError, ProtocolError...: not proven
    report(unknown_after(error, key))
