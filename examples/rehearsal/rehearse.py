#!/usr/bin/env python3
"""One rehearsal of order_service.py, as docs/rehearsal.md walks through it (standard library
only). It starts a retryproof provider standing in for the fulfillment API's sandbox, with
the fault plan in plan.json; the service in front of it; delivers events.json to the service
with duplicates; saves the provider's journal; and judges it by orderId. Exit status: the
judge's (0 clean, 1 violations).

    rehearse.py [--fixed] [--binary PATH] [--seed N] [--out DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SECRET = "rehearsal-secret"


def find_binary(given):
    binary = given or os.environ.get("RETRYPROOF_BINARY") or shutil.which("retryproof")
    if not binary:
        sys.exit("rehearse.py: retryproof not found: pass --binary, set RETRYPROOF_BINARY, or "
                 "put it on PATH (a build leaves it at build/dev/scenarios/retryproof)")
    return binary


def start(command):
    """Starts a server that prints its URL on the first line; returns (process, url)."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
    url = process.stdout.readline().decode().strip()
    if not url.startswith("http://"):
        process.kill()
        sys.exit(f"rehearse.py: {' '.join(command)} did not start (see its errors above)")
    return process, url


def call(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as response:
        return response.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixed", action="store_true", help="rehearse the fixed service")
    parser.add_argument("--binary", help="the retryproof program")
    parser.add_argument("--seed", default="1", help="the deliveries' seed (and the job ids')")
    parser.add_argument("--out", help="keep journal.json and the reports here")
    args = parser.parse_args()
    binary = find_binary(args.binary)
    out = args.out or tempfile.mkdtemp(prefix="rehearsal-")
    os.makedirs(out, exist_ok=True)

    running = []
    try:
        # The sandbox of the real fulfillment API. It records each create's orderId, so that
        # the judge groups the service's calls by order whatever keys the service chose.
        provider, provider_url = start([binary, "provider", "--port", "0", "--seed", args.seed,
                                        "--operation-field", "orderId"])
        running.append(provider)

        # --- THE PROXY GOES HERE -------------------------------------------------------------
        # With `retryproof proxy` (docs/proxy.md), the faults are injected between the
        # service and the real sandbox instead of by this stand-in (once the proxy records
        # --operation-field, the judge below reads the proxy's journal):
        #   proxy, upstream_url = start([binary, "proxy", "--upstream", provider_url,
        #                                "--port", "0"])
        #   plan goes to upstream_url + "/_test/faults", the journal comes from the proxy.
        # Until then the stand-in provider takes the plan itself.
        upstream_url = provider_url
        with open(os.path.join(HERE, "plan.json"), encoding="utf-8") as plan:
            call(upstream_url + "/_test/faults", json.load(plan))
        # -------------------------------------------------------------------------------------

        service_command = [sys.executable, os.path.join(HERE, "order_service.py"),
                           "--upstream", upstream_url, "--secret", SECRET]
        service, service_url = start(service_command + (["--fixed"] if args.fixed else []))
        running.append(service)

        delivered = subprocess.run([binary, "deliver", "--target", service_url + "/webhooks",
                                    "--events", os.path.join(HERE, "events.json"),
                                    "--seed", args.seed, "--secret", SECRET])
        print(f"rehearse.py: deliver exited {delivered.returncode}", flush=True)

        journal = os.path.join(out, "journal.json")
        with open(journal, "wb") as saved:
            saved.write(call(upstream_url + "/_test/journal"))
        judged = subprocess.run([binary, "judge", journal, "--operation-field", "orderId",
                                 "--json", os.path.join(out, "judge.json"),
                                 "--markdown", os.path.join(out, "judge.md")])
        print(f"rehearse.py: the journal and the reports are in {out}", flush=True)
        return judged.returncode
    finally:
        for process in reversed(running):
            process.terminate()
            process.wait(timeout=10)
            process.stdout.close()


if __name__ == "__main__":
    sys.exit(main())
