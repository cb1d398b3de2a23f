#!/usr/bin/env python3
"""A retry-safe client for retryproof's provider (Python 3, standard library only).

One logical operation, one idempotency key (the operationId itself), the same payload
on every attempt, a durable intent written before the first POST, at most three POSTs
with capped exponential backoff and jitter, a lookup by key after any outcome it could
not see, and a final lookup when the budget is spent. When nothing can be proven it
fails closed: {"outcome":"unknown"}, never a guess.

Contract (docs/scenarios.md): reads RETRYPROOF_BASE_URL, RETRYPROOF_OPERATION,
RETRYPROOF_STATE_DIR, RETRYPROOF_SEED and RETRYPROOF_CLIENT (the scenario's attempts,
timeout and backoff, which it follows); prints exactly one JSON line on stdout; logs go to
stderr.

With --same-key-retry it re-sends the same key and payload after an outcome it could not
see, instead of looking the key up first (as the Stripe SDK does), and still keeps its
durable intent record. Judge it with --client-policy on-ambiguous=same-key-retry.
"""
import hashlib
import http.client
import json
import os
import random
import sys
import time
import traceback
import urllib.parse

# The scenario's settings when the harness gives them (RETRYPROOF_CLIENT), else these.
SETTINGS = json.loads(os.environ.get("RETRYPROOF_CLIENT") or "{}")
ATTEMPTS = int(SETTINGS.get("attempts", 3))            # total POSTs, not retries after the first
BASE_MS = int(SETTINGS.get("baseDelayMs", 100))        # first backoff step
CAP_MS = int(SETTINGS.get("maxDelayMs", 1000))         # no step is longer than this
TIMEOUT_S = int(SETTINGS.get("timeoutMs", 1000)) / 1000  # per socket operation of one request
SAME_KEY_RETRY = "--same-key-retry" in sys.argv[1:]
REJECTED = "rejected: "  # how a definitive refusal's reason begins


def log(message):
    print(f"[py-client {time.monotonic():.3f}] {message}", file=sys.stderr, flush=True)


def fingerprint(payload):
    """SHA-256 of the payload in canonical form (sorted keys, no white space)."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Ledger:
    """One JSON intent file per operation; every save is atomic and durable."""

    def __init__(self, state_dir, operation_id):
        name = hashlib.sha256(operation_id.encode("utf-8")).hexdigest()[:32]
        self.dir = state_dir
        self.path = os.path.join(state_dir, f"intent-{name}.json")

    def load(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def save(self, intent):
        os.makedirs(self.dir, exist_ok=True)
        temp = f"{self.path}.tmp-{os.getpid()}"
        with open(temp, "w", encoding="utf-8") as f:
            json.dump(intent, f)
            f.flush()
            os.fsync(f.fileno())          # the bytes are on disk before the name points at them
        os.replace(temp, self.path)       # atomic: readers see the old or the new record
        fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(fd)                  # and the rename itself survives a crash
        finally:
            os.close(fd)


class Provider:
    """Sends one request per connection and says precisely how it ended.

    Returns (status, body_text, headers) or (failure, None, None) where failure is one of
    "not-sent" (nothing left: safe to retry), "timeout", "closed", "truncated" (all three
    ambiguous: the request may have committed)."""

    def __init__(self, base_url):
        parsed = urllib.parse.urlsplit(base_url)
        # https:// is verified against the system's CAs, or SSL_CERT_FILE's when it is set
        # (`retryproof run --tls` sets it to a bundle with the run's CA).
        self.connection = (http.client.HTTPSConnection if parsed.scheme == "https"
                           else http.client.HTTPConnection)
        self.host = parsed.hostname
        self.port = parsed.port or (443 if parsed.scheme == "https" else 80)

    def send(self, method, path, body=None, headers=None):
        conn = self.connection(self.host, self.port, timeout=TIMEOUT_S)
        try:
            try:
                conn.connect()            # refused, unreachable, TLS refused: no byte of it left
            except OSError as error:
                return f"not-sent ({error.__class__.__name__})", None, None
            try:
                conn.request(method, path, body=body, headers=headers or {})
                response = conn.getresponse()
            except TimeoutError:          # socket.timeout: no answer in time
                return "timeout", None, None
            except (ConnectionError, http.client.HTTPException, OSError) as error:
                # RemoteDisconnected, ConnectionResetError, BrokenPipeError, a garbled status line
                return f"closed ({error.__class__.__name__})", None, None
            try:
                raw = response.read()
            except TimeoutError:
                return "timeout", None, None
            except (http.client.IncompleteRead, ConnectionError, OSError) as error:
                return f"truncated ({error.__class__.__name__})", None, None
            return response.status, raw.decode("utf-8", "replace"), response
        finally:
            conn.close()


def job_id_in(body):
    """The job id from a response body, or None when the body is not a whole job."""
    try:
        job = json.loads(body)
    except (TypeError, ValueError):
        return None
    return job["id"] if isinstance(job, dict) and isinstance(job.get("id"), str) else None


def error_code_in(body):
    try:
        parsed = json.loads(body)
    except (TypeError, ValueError):
        return ""
    return parsed.get("error", "") if isinstance(parsed, dict) else ""


class Client:
    def __init__(self, base_url, operation_id, payload, state_dir, seed):
        self.provider = Provider(base_url)
        self.operation_id, self.payload = operation_id, payload
        self.body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        self.fingerprint = fingerprint(payload)
        self.ledger = Ledger(state_dir, operation_id)
        self.random = random.Random(seed)
        self.intent = None
        self.saw_in_flight = False
        self.key_used_for_another_payload = False

    # -- the intent record --------------------------------------------------------------
    def save(self, **changes):
        self.intent.update(changes)
        self.ledger.save(self.intent)

    def succeeded(self, job_id):
        self.save(status="confirmed", jobId=job_id)
        return {"outcome": "succeeded", "jobId": job_id}

    def give_up(self, outcome, reason):
        self.save(status=outcome, reason=reason)
        if outcome == "failed":
            return {"outcome": "failed", "reason": reason}
        return {"outcome": "unknown", "idempotencyKey": self.intent["idempotencyKey"], "reason": reason}

    def backoff_s(self):
        """Exponential, capped; half of each step fixed, half random: never immediate."""
        step = min(CAP_MS, BASE_MS * 2 ** max(self.intent["attempts"] - 1, 0))
        return (step / 2 + self.random.uniform(0, step / 2)) / 1000

    def budget_left(self):
        return self.intent["attempts"] < ATTEMPTS

    # -- the state machine: plan -> attempt -> classify -> backoff | reconcile | done ----
    def run(self):
        earlier = self.ledger.load()
        # If an earlier run sent this key with another payload, a job found by key may be
        # that payload's: a lookup cannot tell, so it proves nothing (fail closed).
        self.key_used_for_another_payload = (
            earlier is not None and earlier.get("payloadFingerprint") != self.fingerprint
            and earlier.get("attempts", 0) > 0)
        stale = earlier is not None and (
            earlier.get("payloadFingerprint") != self.fingerprint
            or (earlier.get("status") == "failed" and not earlier.get("reason", "").startswith(REJECTED)))
        if earlier is not None and not stale:
            self.intent = earlier
            status = earlier.get("status")
            log(f"intent ledger: an earlier run left status {status}")
            if status == "confirmed":                   # report it, send nothing
                return {"outcome": "succeeded", "jobId": earlier["jobId"]}
            if status == "failed":                      # refused before: do not send it again
                return {"outcome": "failed", "reason": earlier["reason"]}
            if SAME_KEY_RETRY:                          # re-send the same key: a replay if it committed
                return self.attempt(wait_s=0)
            return self.reconcile(final=False)          # planned/sent/unknown: look up first
        # The key is derived once, from business identity, and kept for every attempt.
        self.intent = {"operationId": self.operation_id, "idempotencyKey": self.operation_id,
                       "payloadFingerprint": self.fingerprint, "status": "planned", "attempts": 0}
        self.ledger.save(self.intent)                   # durable before the first request
        return self.attempt(wait_s=0)

    def attempt(self, wait_s):
        while True:
            if wait_s > 0:
                log(f"waiting {wait_s * 1000:.0f} ms")
                time.sleep(wait_s)
            if not self.budget_left():                  # a 5xx may follow a commit: look it up
                if SAME_KEY_RETRY:                      # no lookup: nothing can be proven
                    return self.give_up("unknown", f"no answer after {self.intent['attempts']} attempts")
                return self.reconcile(final=True)
            self.save(status="sent", attempts=self.intent["attempts"] + 1)
            key = self.intent["idempotencyKey"]
            status, body, response = self.provider.send(
                "POST", "/jobs", body=self.body,
                # UTF-8 bytes, as in the lookup's percent-encoding (http.client would send latin-1)
                headers={"Idempotency-Key": key.encode("utf-8"), "Content-Type": "application/json"})
            log(f"POST /jobs #{self.intent['attempts']} key={key} -> {status}")
            if status in (200, 201) and job_id_in(body):
                return self.succeeded(job_id_in(body))
            if status in (503, 429, 409) or str(status).startswith("not-sent"):
                # Proven not committed by this try (409: the first try is still deciding).
                self.saw_in_flight |= status == 409
                wait_s = self.backoff_s()
                if status == 429:
                    try:
                        told_s = float(response.getheader("Retry-After", "1"))
                    except ValueError:
                        told_s = 1.0
                    # Never sooner than told, and up to a quarter later: a fleet told to come
                    # back in a second would otherwise come back in the same millisecond.
                    wait_s = max(wait_s, told_s + self.random.uniform(0, told_s / 4))
                continue
            if isinstance(status, int) and 400 <= status < 500:
                code = error_code_in(body)
                return self.give_up("failed", f"{REJECTED}{status}" + (f" {code}" if code else ""))
            # Timeout, closed/reset, truncated or unparsable body, 500: it may have committed.
            if SAME_KEY_RETRY:                          # the same key again: a replay if it did
                wait_s = self.backoff_s()
                continue
            return self.reconcile(final=False)

    def reconcile(self, final):
        key = self.intent["idempotencyKey"]
        status, body, _ = self.provider.send(
            "GET", "/jobs/by-idempotency-key/" + urllib.parse.quote(key, safe=""))
        log(f"GET lookup key={key} -> {status}")
        if status == 200 and job_id_in(body):
            if self.key_used_for_another_payload:
                return self.give_up("unknown", f"the provider holds {job_id_in(body)} for this key, "
                                    "which an earlier run sent with another payload")
            return self.succeeded(job_id_in(body))
        if status == 404:
            if not final and self.budget_left():        # never committed: same key again
                return self.attempt(wait_s=self.backoff_s())
            if self.saw_in_flight:                      # a request may still commit
                return self.give_up("unknown", "the key was still in flight when the budget ran out")
            return self.give_up("failed", f"not committed after {self.intent['attempts']} attempts")
        return self.give_up("unknown", f"lookup failed: {status}")  # fail closed


def main():
    key = None
    try:
        operation = json.loads(os.environ["RETRYPROOF_OPERATION"])
        key = operation["operationId"]
        payload = operation.get("payload", {})
        seed = int(os.environ.get("RETRYPROOF_SEED") or random.SystemRandom().randrange(2 ** 32))
        state_dir = os.environ.get("RETRYPROOF_STATE_DIR") or os.path.join(os.getcwd(), ".intents")
        client = Client(os.environ["RETRYPROOF_BASE_URL"], key, payload, state_dir, seed)
        result = client.run()
    except Exception:  # never die without an outcome line: an unexpected error is unknown
        traceback.print_exc(file=sys.stderr)
        result = {"outcome": "unknown", "idempotencyKey": key, "reason": "unexpected client error"}
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
