"""What the careful clients add to their retry library: how to read an answer, a record of the
operation that outlives the process, and a lookup by key. The library still does every
retry; this file never retries.

The safe pattern (docs/scenarios.md, the table of what a client can conclude): retry with the
same key and payload only what is proven not committed (503, 429, 409, a connection never
made); after anything that may have committed (a timeout, a dropped or reset connection, a
truncated body, a 500) look the key up before sending anything else; when the lookup cannot
answer, fail closed (unknown)."""
import hashlib
import json
import os
import urllib.parse

import urllib3

PRE_COMMIT = {409, 429, 503}  # the provider stored nothing: the same key again is safe


class PreCommit(Exception):
    """Nothing was stored by this attempt: the library may retry it after its backoff."""

    def __init__(self, reason, retry_after_s=0.0):
        super().__init__(reason)
        self.retry_after_s = retry_after_s


class Definitive(Exception):
    """A 4xx refusal (400, 404, 422): retrying cannot change it."""


class LookupFailed(Exception):
    """The lookup after an unseen outcome could not answer: nothing can be proven."""


def pool(**options):
    """A urllib3 PoolManager with a 1 s timeout that trusts the run's CA over HTTPS. Debian's
    urllib3 1.26 makes /etc/ssl/certs/ca-certificates.crt every pool's default ca_certs, so
    SSL_CERT_FILE (which `run --tls` sets) is never read: the CA is named, from
    RETRYPROOF_CA_FILE when the harness gives it (None: the system's store)."""
    return urllib3.PoolManager(timeout=urllib3.Timeout(total=1.0),
                               ca_certs=os.environ.get("RETRYPROOF_CA_FILE"), **options)


def job_id_in(data):
    try:
        body = json.loads(data)
    except (TypeError, ValueError):
        return None
    return body["id"] if isinstance(body, dict) and isinstance(body.get("id"), str) else None


def retry_after_s(response):
    try:
        return float(response.headers.get("Retry-After", "0"))
    except ValueError:
        return 0.0


def classify(response):
    """An answer as a job id, or the exception that says what it proves (None: unseen)."""
    job = job_id_in(response.data)
    if 200 <= response.status < 300 and job:
        return job
    if response.status in PRE_COMMIT:
        raise PreCommit(f"HTTP {response.status}", retry_after_s(response))
    if 400 <= response.status < 500 and response.status != 408:
        raise Definitive(f"{response.status} {error_code_in(response.data)}".strip())
    return None  # a 500, a 408, a 2xx without a whole job: it may have committed


def error_code_in(data):
    try:
        body = json.loads(data)
    except (TypeError, ValueError):
        return ""
    return body.get("error", "") if isinstance(body, dict) else ""


def lookup(http, base_url, key):
    """GET by key, once: the job id, or None when nothing is stored under the key.
    Raises LookupFailed when the answer is neither (a 503, a timeout, a dropped connection)."""
    url = f"{base_url}/jobs/by-idempotency-key/{urllib.parse.quote(key, safe='')}"
    try:
        response = http.request("GET", url, retries=False)
    except urllib3.exceptions.HTTPError as error:
        raise LookupFailed(f"lookup: {type(error).__name__}") from error
    if response.status == 200 and job_id_in(response.data):
        return job_id_in(response.data)
    if response.status == 404:
        return None
    raise LookupFailed(f"lookup: HTTP {response.status}")


class Intent:
    """One small JSON file per operation in RETRYPROOF_STATE_DIR, written before the first
    request: a rerun finds what an earlier run knew (confirmed: send nothing; sent: look the
    key up first, since a killed run cannot know what its last request did)."""

    def __init__(self, state_dir, key, payload):
        self.dir = state_dir
        self.path = os.path.join(state_dir, hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        self.fingerprint = hashlib.sha256(canonical.encode()).hexdigest()

    def earlier(self):
        """What an earlier run recorded for this payload: None, "sent", ("confirmed", job),
        or "other-payload" (a found job may be that payload's, so a lookup proves nothing)."""
        try:
            with open(self.path, encoding="utf-8") as f:
                record = json.load(f)
        except (FileNotFoundError, ValueError):
            return None
        if record.get("fingerprint") != self.fingerprint:
            return "other-payload"
        return ("confirmed", record["jobId"]) if record.get("jobId") else "sent"

    def save(self, job_id=None):
        os.makedirs(self.dir, exist_ok=True)
        temp = f"{self.path}.tmp-{os.getpid()}"
        with open(temp, "w", encoding="utf-8") as f:
            json.dump({"fingerprint": self.fingerprint, "jobId": job_id}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, self.path)  # readers see the old record or the new one
