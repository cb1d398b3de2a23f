"""retryproof's misbehaving provider inside a Python test suite, with the standard library only.

A Sandbox starts ``retryproof provider --port 0`` (the binary given, or ``$RETRYPROOF_BINARY``,
or ``retryproof`` on ``PATH``), reads its URL from the first line it prints, waits until
``GET /_test/health`` answers, and steers and reads it over its control plane: faults, jobs,
the journal, and verdicts judged from the traffic your code sent (``GET /_test/verdicts``)::

    with Sandbox() as sandbox:
        sandbox.faults("commit-then-drop")
        my_code_that_creates_order_42(base_url=sandbox.url)
        verdicts = sandbox.verdicts(policy="attempts=3")
        assert verdicts.ok, verdicts
        assert len(sandbox.jobs()) == 1

Installed with pip (``pip install path/to/retryproof/embed/python``), the package's pytest
plugin gives every test the ``retryproof_sandbox`` fixture. A fixture of your own::

    @pytest.fixture
    def sandbox():
        with Sandbox() as running:
            yield running

docs/embedding.md has the whole story.
"""

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Sandbox", "SandboxError", "Verdicts", "find_binary"]


class SandboxError(Exception):
    """The provider could not be started, or refused a control call (its words)."""


def find_binary(binary=None):
    """The retryproof executable: `binary`, else $RETRYPROOF_BINARY, else `retryproof` on PATH."""
    candidate = binary or os.environ.get("RETRYPROOF_BINARY") or shutil.which("retryproof")
    if not candidate:
        raise SandboxError(
            "retryproof not found: pass binary=PATH, set RETRYPROOF_BINARY, or put retryproof "
            "on PATH (a build leaves it at build/dev/scenarios/retryproof)")
    if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
        raise SandboxError(f"{candidate}: not an executable file")
    return candidate


class Verdicts:
    """The JSON report of GET /_test/verdicts: the verdicts judged from traffic alone."""

    def __init__(self, report):
        self.report = report
        self.scenario = report["scenarios"][0]

    @property
    def ok(self):
        """No verdict failed."""
        return self.report["summary"]["notMet"] == 0

    def status(self, verdict):
        """"pass", "fail", "n/a" or "inconclusive"; KeyError for a verdict not judged from
        traffic."""
        for judged in self.scenario["verdicts"]:
            if judged["id"] == verdict:
                return judged["status"]
        raise KeyError(f"verdict {verdict!r} is not judged from traffic alone")

    @property
    def failures(self):
        """The failed verdicts: {"id", "severity", "explanation", "evidence"} each."""
        return [v for v in self.scenario["verdicts"] if v["status"] == "fail"]

    @property
    def inconclusive(self):
        """The verdicts the traffic could not decide: {"id", "reason", ...} each."""
        return [v for v in self.scenario["verdicts"] if v["status"] == "inconclusive"]

    def __str__(self):
        """Each verdict, and why for those that did not pass."""
        lines = [self.scenario["description"]]
        lines += ["  " + _verdict_line(verdict) for verdict in self.scenario["verdicts"]]
        # What left the run unable to tell, where no single verdict carries it (a gap in the
        # journal, say).
        lines += [f"  inconclusive: {reason['reason']}"
                  for reason in self.scenario.get("inconclusive", []) if not reason["verdict"]]
        return "\n".join(lines)

    def __repr__(self):
        """What pytest prints for `assert verdicts.ok, verdicts`: it takes repr() and cuts its
        middle out past 240 characters. So: what did not pass, then why, cut here to fit."""
        undecided = self.failures + self.inconclusive
        if not undecided:
            return f"<Verdicts ok: {len(self.scenario['verdicts'])} judged from traffic>"
        names = ", ".join(f"{v['id']} {v['status']}" for v in undecided)
        text = "\n".join([f"<Verdicts not ok: {names}"] +
                         ["  " + _verdict_line(verdict) for verdict in undecided])
        rest = "... (str(verdicts) has it all)>"
        if len(text) + 1 > _PYTEST_REPR_LIMIT:
            return text[:_PYTEST_REPR_LIMIT - len(rest)] + rest
        return text + ">"


_PYTEST_REPR_LIMIT = 240  # saferepr's maxsize, for an assertion's message


def _verdict_line(verdict):
    line = f"{verdict['id']}: {verdict['status']}"
    if verdict["status"] == "fail":
        seqs = ", ".join(str(seq) for seq in verdict["evidence"])
        line += f" ({verdict['severity']}): {verdict['explanation']} (seq {seqs})"
    elif verdict["status"] == "inconclusive":
        line += f": {verdict.get('reason', verdict['explanation'])}"
    return line


# The provider's options the helper passes itself, and what to do instead: given twice, the
# provider would only say "--port: At Most 1 required but received 2".
MANAGED_OPTIONS = {
    "--port": "the sandbox listens on a free port of its own (--port 0); sandbox.url says which",
    "--seed": "pass seed=N",
    "--operation-field": "pass operation_field=NAME (\"\" for none)",
}


def _refuse_managed(args):
    for arg in args:
        name = str(arg).split("=", 1)[0]
        if name in MANAGED_OPTIONS:
            raise SandboxError(f"args: {name} is the sandbox's own: {MANAGED_OPTIONS[name]}")


class Sandbox:
    """A provider of its own on a free loopback port, for one test or a whole suite."""

    def __init__(self, binary=None, *, seed=0, operation_field="orderId", args=(),
                 start_timeout=10.0):
        self._binary = binary
        self._seed = seed
        self._operation_field = operation_field
        self._args = [str(arg) for arg in args]
        _refuse_managed(self._args)
        self._start_timeout = start_timeout
        self._process = None
        self._log = None
        self.url = None

    # -- life ------------------------------------------------------------------------------

    def start(self):
        deadline = time.monotonic() + self._start_timeout
        command = [find_binary(self._binary), "provider", "--port", "0", "--seed",
                   str(self._seed)]
        if self._operation_field:
            command += ["--operation-field", self._operation_field]
        command += self._args
        # The provider logs a line per request: to a file, so that a full pipe never blocks it.
        self._log = tempfile.TemporaryFile(mode="w+b")
        self._process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=self._log)
        first_line = queue.Queue()
        threading.Thread(target=lambda: first_line.put(self._process.stdout.readline()),
                         daemon=True).start()
        try:
            line = first_line.get(timeout=self._start_timeout).decode().strip()
            ended = not line  # standard output closed: the provider is exiting
        except queue.Empty:
            line, ended = "", False
        if not line.startswith("http://"):
            if ended:
                try:
                    self._process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            exited = self._process.poll()
            why = (f"exited ({exited}) before printing its URL" if exited is not None else
                   f"did not print its URL within {self._start_timeout} s")
            self.stop()
            raise SandboxError(f"{' '.join(command)} {why}: {self.log.strip() or 'no output'}")
        self.url = line
        try:
            self._wait_until_healthy(deadline)
        except SandboxError as problem:
            self.stop()
            raise SandboxError(f"{' '.join(command)} {problem}: "
                               f"{self.log.strip() or 'no output'}") from None
        return self

    def _wait_until_healthy(self, deadline):
        """Waits until GET /_test/health answers 200: the provider accepts connections. It
        needs no control token, so a provider started with --control-token answers it too."""
        last = "no answer"
        while True:
            try:
                left = max(deadline - time.monotonic(), 0.1)
                with urllib.request.urlopen(self.url + "/_test/health", timeout=left) as answer:
                    if json.loads(answer.read()).get("status") == "ok":
                        return
            except urllib.error.HTTPError as error:
                last = f"{error.code} {error.read().decode(errors='replace').strip()}"
                if error.code == 404:
                    raise SandboxError("has no GET /_test/health (a retryproof older than this "
                                       "helper?)") from None
            except (urllib.error.URLError, OSError, ValueError) as error:
                last = str(error)
            if self._process.poll() is not None:
                raise SandboxError(f"exited ({self._process.poll()}) while starting")
            if time.monotonic() > deadline:
                raise SandboxError(f"printed {self.url} but GET /_test/health did not answer "
                                   f"200 within {self._start_timeout} s (last: {last})")
            time.sleep(0.01)

    def stop(self):
        """Stops the provider (SIGTERM, then SIGKILL after five seconds). Idempotent."""
        if self._process is not None:
            if self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._process.stdout.close()
            self._process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    @property
    def log(self):
        """What the provider logged so far: one line per request, never a payload.

        The provider writes its log off the request path, in batches a few milliseconds
        apart, so this waits (2 s at most) until every request journaled so far has its
        line: a request that has been answered is in the log read after it."""
        if self._log is None:
            return ""
        running = self._process is not None and self._process.poll() is None
        expected = self._call("GET", "/_test/journal?limit=1")["count"] if running else 0
        deadline = time.monotonic() + 2
        while True:
            self._log.seek(0)
            text = self._log.read().decode(errors="replace")
            if text.count("[provider] ") >= expected or time.monotonic() > deadline:
                return text
            time.sleep(0.005)

    # -- the control plane -----------------------------------------------------------------

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = error.read().decode(errors="replace")
            try:
                detail = json.loads(detail).get("detail", detail)
            except ValueError:
                pass
            raise SandboxError(f"{method} {path}: {error.code}: {detail}") from None

    def faults(self, *faults):
        """The faults of the next new operations, in order: names ("commit-then-drop") or
        targeted rules ({"fault": ..., "match": {"orderId": ...}}). Returns the plan in force."""
        return self.plan({"faults": list(faults)})

    def plan(self, plan):
        """A whole fault plan, in the body format of POST /_test/faults."""
        return self._call("POST", "/_test/faults", plan)

    def reset(self, seed=None):
        """Empties the store, the plan and the journal."""
        return self._call("POST", "/_test/reset", {} if seed is None else {"seed": seed})

    def advance_clock(self, duration):
        """Moves the provider's clock forward ("25h"), as key expiry needs."""
        return self._call("POST", "/_test/clock", {"advance": duration})

    def jobs(self):
        """The jobs the provider holds, in creation order: {"id", "key", "orderId"} each."""
        return self._call("GET", "/_test/jobs")["jobs"]

    def journal(self):
        """Every request it saw, in order: the entries of GET /_test/journal."""
        return self._call("GET", "/_test/journal")["entries"]

    def verdicts(self, policy=None):
        """Judges the traffic so far. `policy` is what your code promises, in the form of
        --client-policy ("attempts=4,min-backoff=100ms,on-ambiguous=same-key-retry")."""
        query = {"policy": policy} if policy else {}
        path = "/_test/verdicts" + ("?" + urllib.parse.urlencode(query) if query else "")
        return Verdicts(self._call("GET", path))
