#!/usr/bin/env python3
"""A session client for retryproof's provider (Python 3, standard library only): one
long-lived JobsSession serves every operation of the instance, as a service keeps one SDK
client for thousands of calls; embed/python/retryproof_session.py's serve() reads the
operations from standard input, runs them in a thread pool and writes the tagged outcome
lines (docs/sessions.md).

Each operation: the idempotency key is the operationId, the same body on every attempt, at
most RETRYPROOF_CLIENT's attempts POSTs with capped, jittered backoff, and a lookup by key
after any answer it could not see. A rerun after a crash (the harness resends the operation
to the next instance) sends the same key, so the provider replays the job it made, or the
lookup finds it: never a second job.
"""
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse

try:
    from retryproof_session import serve
except ImportError:  # run from the source tree, without `pip install embed/python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "embed", "python"))
    from retryproof_session import serve


class RetryBudget:
    """The instance's retry budget, shared by every operation (Brooker 2022; the SRE book's
    10%): a first request adds 0.1 of a token, up to 10; a retry, or a lookup after an answer
    it could not see, takes one. In a long outage the instance stops retrying, so what reaches
    the provider is the load that arrives anyway, not three times it."""

    def __init__(self, ratio=0.1, burst=10.0):
        self.ratio, self.burst, self.tokens = ratio, burst, burst
        self.lock = threading.Lock()

    def deposit(self):
        with self.lock:
            self.tokens = min(self.burst, self.tokens + self.ratio)

    def withdraw(self):
        with self.lock:
            if self.tokens < 1 - 1e-9:
                return False
            self.tokens -= 1
            return True


class JobsSession:
    """The instance's one client of the provider, shared by every operation's thread."""

    def __init__(self, base_url, settings, seed):
        parsed = urllib.parse.urlsplit(base_url)
        self.connection = (http.client.HTTPSConnection if parsed.scheme == "https"
                           else http.client.HTTPConnection)
        self.host, self.port = parsed.hostname, parsed.port
        self.attempts = int(settings.get("attempts", 3))
        self.timeout_s = int(settings.get("timeoutMs", 1000)) / 1000
        self.base_ms = int(settings.get("baseDelayMs", 100))
        self.cap_ms = int(settings.get("maxDelayMs", 1000))
        self.seed = seed
        self.requests = 0  # what the instance has sent, for its log
        self.lock = threading.Lock()
        self.budget = RetryBudget()

    def send(self, method, path, body=None, headers=None):
        """(status, body) or (None, why): a connection per request, so that threads share none."""
        with self.lock:
            self.requests += 1
        conn = self.connection(self.host, self.port, timeout=self.timeout_s)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as error:
            return None, error.__class__.__name__
        finally:
            conn.close()

    def lookup(self, key):
        return self.send("GET", "/jobs/by-idempotency-key/" + urllib.parse.quote(key, safe=""))

    def create(self, operation_id, payload):
        jitter = random.Random(f"{self.seed}:{operation_id}")
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        headers = {"Idempotency-Key": operation_id.encode("utf-8"),
                   "Content-Type": "application/json"}
        in_flight = False  # a 409 or no answer: a request with this key may still commit
        self.budget.deposit()

        def out_of_budget():
            if in_flight:
                return "unknown", "the retry budget is spent, and a request may have committed"
            return "failed", "the retry budget is spent: nothing it sent committed"

        for attempt in range(1, self.attempts + 1):
            if attempt > 1 and not self.budget.withdraw():
                return out_of_budget()
            status, text = self.send("POST", "/jobs", body, headers)
            if status in (200, 201):
                return "succeeded", json.loads(text)["id"]
            if status is not None and 400 <= status < 500 and status not in (409, 429):
                return "failed", f"rejected: {status}"
            in_flight |= status not in (429, 503)
            if status not in (409, 429, 503) or attempt == self.attempts:  # it may have committed
                if not self.budget.withdraw():
                    return out_of_budget()
                found, text = self.lookup(operation_id)
                if found == 200:
                    return "succeeded", json.loads(text)["id"]
                if found != 404:
                    return "unknown", f"the lookup failed: {found or text}"
            if attempt < self.attempts:
                step = min(self.cap_ms, self.base_ms * 2 ** (attempt - 1))
                time.sleep((step / 2 + jitter.uniform(0, step / 2)) / 1000)
        if in_flight:
            return "unknown", "still in flight when the attempts ran out"
        return "failed", f"not committed after {self.attempts} attempts"


def main():
    jobs = JobsSession(os.environ["RETRYPROOF_BASE_URL"],
                       json.loads(os.environ.get("RETRYPROOF_CLIENT") or "{}"),
                       os.environ.get("RETRYPROOF_SEED", "0"))
    code = serve(jobs.create)
    print(f"[py-session {os.environ.get('RETRYPROOF_SERVICE_INSTANCE')}."
          f"{os.environ.get('RETRYPROOF_INSTANCE')}] {jobs.requests} requests",
          file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
