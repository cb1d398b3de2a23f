#!/usr/bin/env python3
"""A small service under rehearsal (Python 3, standard library only): it consumes
order-paid webhooks and asks a fulfillment API (the upstream) to ship each order.

    order_service.py --upstream URL [--port 0] [--secret S] [--fixed]

It prints its URL on the first line, then serves POST /webhooks. Each event is
{"id": "evt_1", "type": "order.paid", "orderId": "order-1", "amount": 120}.

By default it has the two classic bugs, on purpose:
- inbound, check-then-set: "seen this event?" is asked, the upstream is called, and only then
  is the event recorded, so a duplicate that arrives meanwhile is handled twice;
- outbound, a fresh idempotency key on every attempt, and a retry of anything that failed,
  so an answer lost after the upstream committed becomes a second shipment.

With --fixed it does what docs/rehearsal.md arrives at: it claims the event id in an inbound
ledger with a unique constraint (one atomic step), calls the upstream under a key derived
from the order, and after an outcome it could not see asks the upstream by key before
sending again.
"""
import argparse
import hashlib
import hmac
import http.client
import json
import os
import signal
import sqlite3
import sys
import tempfile
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ATTEMPTS = 3
TIMEOUT_S = 2.0


def log(message):
    print(f"[order-service] {message}", file=sys.stderr, flush=True)


class Upstream:
    """The fulfillment API. Each call says what it proves: a status, or None (no answer)."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname, parts.port or 80

    def _call(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            return None, b""  # dropped, reset, timed out or cut short: it may have committed
        finally:
            connection.close()

    def create(self, key, order):
        body = json.dumps({"orderId": order["orderId"], "amount": order.get("amount")})
        return self._call("POST", "/jobs", body,
                          {"Idempotency-Key": key, "Content-Type": "application/json"})[0]

    def lookup(self, key):
        return self._call("GET", "/jobs/by-idempotency-key/" + urllib.parse.quote(key, safe=""))[0]


class NaiveHandling:
    def __init__(self, upstream):
        self.upstream = upstream
        self.seen = set()

    def handle(self, event):
        if event["id"] in self.seen:  # check ...
            return True
        for _ in range(ATTEMPTS):  # a fresh key each time, and no question asked
            status = self.upstream.create(f"ship-{uuid.uuid4()}", event)
            if status is not None and 200 <= status < 300:
                self.seen.add(event["id"])  # ... then set, long after the check
                return True
        return False


class FixedHandling:
    def __init__(self, upstream, ledger_path):
        self.upstream = upstream
        self.ledger_path = ledger_path
        with self._ledger() as db:
            db.execute("CREATE TABLE IF NOT EXISTS inbound (event_id TEXT PRIMARY KEY)")

    def _ledger(self):
        return sqlite3.connect(self.ledger_path, timeout=10, isolation_level=None)

    def handle(self, event):
        try:
            with self._ledger() as db:  # the claim and the check are one step
                db.execute("INSERT INTO inbound (event_id) VALUES (?)", (event["id"],))
        except sqlite3.IntegrityError:
            return True  # another delivery of this event has it
        if self._ship(event):
            return True
        with self._ledger() as db:  # not shipped: let the provider deliver it again
            db.execute("DELETE FROM inbound WHERE event_id = ?", (event["id"],))
        return False

    def _ship(self, event):
        key = "ship:" + event["orderId"]  # one key per order, on every attempt
        delay = 0.1
        for _ in range(ATTEMPTS):
            status = self.upstream.create(key, event)
            if status is not None and 200 <= status < 300:
                return True
            if status is None or status >= 500 and status != 503:
                found = self.upstream.lookup(key)  # it may have committed: ask first
                if found == 200:
                    return True
                if found != 404:
                    return False  # cannot tell: fail closed, the event comes again
            elif status not in (409, 429, 503):
                return False  # a definitive refusal
            time.sleep(delay)
            delay *= 2
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="the fulfillment API's base URL")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--secret", default="", help="verify Retryproof-Signature with it")
    parser.add_argument("--fixed", action="store_true", help="the service after the rehearsal")
    args = parser.parse_args()

    upstream = Upstream(args.upstream)
    ledger = os.path.join(tempfile.mkdtemp(prefix="order-service-"), "ledger.sqlite")
    handling = FixedHandling(upstream, ledger) if args.fixed else NaiveHandling(upstream)

    class Webhooks(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if args.secret:
                expected = "sha256=" + hmac.new(args.secret.encode(), body, hashlib.sha256).hexdigest()
                if not hmac.compare_digest(expected, self.headers.get("Retryproof-Signature", "")):
                    return self._answer(401, {"error": "bad signature"})
            if self.path != "/webhooks":
                return self._answer(404, {"error": "not found"})
            event = json.loads(body)
            handled = handling.handle(event)
            log(f"{event['id']} copy {self.headers.get('Retryproof-Delivery')}: "
                f"{'handled' if handled else 'not handled'}")
            self._answer(200 if handled else 503, {"handled": handled})

        def _answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Webhooks)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    try:
        server.serve_forever()  # until SIGTERM or Ctrl-C
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
