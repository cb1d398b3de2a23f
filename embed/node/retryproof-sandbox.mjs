// retryproof's misbehaving provider inside a JavaScript test suite (node:test, Jest, Vitest),
// with no dependencies. startSandbox() runs `retryproof provider --port 0` (the binary given,
// or $RETRYPROOF_BINARY, or `retryproof` on PATH), reads its URL from the first line it
// prints, waits until GET /_test/health answers, and steers and reads it over its control
// plane: faults, jobs, the journal, and verdicts judged from the traffic your code sent
// (GET /_test/verdicts).
//
//   const sandbox = await startSandbox();
//   await sandbox.faults('commit-then-drop');
//   await myCodeThatCreatesOrder42(sandbox.url);
//   const verdicts = await sandbox.verdicts({ policy: 'attempts=3' });
//   assert.ok(verdicts.ok, verdicts.toString());
//   await sandbox.stop();
//
// docs/embedding.md has the whole story.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export class SandboxError extends Error {}

// The retryproof executable: `binary`, else $RETRYPROOF_BINARY, else `retryproof` on PATH.
export function findBinary(binary) {
  const executable = (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  const candidate = binary ?? process.env.RETRYPROOF_BINARY;
  if (candidate) {
    if (!executable(candidate)) throw new SandboxError(`${candidate}: not an executable file`);
    return candidate;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'retryproof'))) return join(dir, 'retryproof');
  }
  throw new SandboxError(
    'retryproof not found: pass { binary }, set RETRYPROOF_BINARY, or put retryproof on PATH ' +
      '(a build leaves it at build/dev/scenarios/retryproof)');
}

// The JSON report of GET /_test/verdicts: the verdicts judged from traffic alone.
export class Verdicts {
  constructor(report) {
    this.report = report;
    this.scenario = report.scenarios[0];
  }

  // No verdict failed.
  get ok() {
    return this.report.summary.notMet === 0;
  }

  // The failed verdicts: { id, severity, explanation, evidence } each.
  get failures() {
    return this.scenario.verdicts.filter((verdict) => verdict.status === 'fail');
  }

  // The verdicts the traffic could not decide: { id, reason, ... } each.
  get inconclusive() {
    return this.scenario.verdicts.filter((verdict) => verdict.status === 'inconclusive');
  }

  // 'pass', 'fail', 'n/a' or 'inconclusive'; throws for a verdict not judged from traffic.
  status(id) {
    const verdict = this.scenario.verdicts.find((judged) => judged.id === id);
    if (!verdict) throw new SandboxError(`verdict ${id} is not judged from traffic alone`);
    return verdict.status;
  }

  // Each verdict, and why for those that did not pass: what `assert.ok(verdicts.ok, verdicts)`
  // prints (an AssertionError takes String(message)).
  toString() {
    const lines = [this.scenario.description];
    for (const verdict of this.scenario.verdicts) lines.push(`  ${verdictLine(verdict)}`);
    // What left the run unable to tell, where no single verdict carries it (a journal's gap).
    for (const reason of this.scenario.inconclusive ?? []) {
      if (!reason.verdict) lines.push(`  inconclusive: ${reason.reason}`);
    }
    return lines.join('\n');
  }

  // What console.log and util.inspect show (a test runner's diff too): what did not pass,
  // and why, in place of the whole report.
  [Symbol.for('nodejs.util.inspect.custom')]() {
    const undecided = [...this.failures, ...this.inconclusive];
    if (undecided.length === 0) {
      return `Verdicts { ok: ${this.scenario.verdicts.length} judged from traffic }`;
    }
    const names = undecided.map((verdict) => `${verdict.id} ${verdict.status}`).join(', ');
    return [`Verdicts { not ok: ${names}`, ...undecided.map((v) => `  ${verdictLine(v)}`)]
      .join('\n') + ' }';
  }
}

function verdictLine(verdict) {
  let line = `${verdict.id}: ${verdict.status}`;
  if (verdict.status === 'fail') {
    line += ` (${verdict.severity}): ${verdict.explanation} (seq ${verdict.evidence.join(', ')})`;
  } else if (verdict.status === 'inconclusive') {
    line += `: ${verdict.reason ?? verdict.explanation}`;
  }
  return line;
}

export class Sandbox {
  constructor(child, url) {
    this.url = url;
    this.child = child;
    this.log = ''; // what the provider logged: one line per request, never a payload
    child.stderr.on('data', (chunk) => {
      this.log += chunk; // read, so that a full pipe never blocks the provider
    });
  }

  async #call(method, path, body) {
    const response = await fetch(this.url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      let detail = text;
      try {
        detail = JSON.parse(text).detail ?? text;
      } catch {}
      throw new SandboxError(`${method} ${path}: ${response.status}: ${detail}`);
    }
    return JSON.parse(text);
  }

  // The faults of the next new operations, in order: names ('commit-then-drop') or targeted
  // rules ({ fault, match: { orderId } }). Resolves to the plan in force.
  faults(...faults) {
    return this.plan({ faults });
  }

  // A whole fault plan, in the body format of POST /_test/faults.
  plan(plan) {
    return this.#call('POST', '/_test/faults', plan);
  }

  // Empties the store, the plan and the journal.
  reset(seed) {
    return this.#call('POST', '/_test/reset', seed === undefined ? {} : { seed });
  }

  // Moves the provider's clock forward ('25h'), as key expiry needs.
  advanceClock(duration) {
    return this.#call('POST', '/_test/clock', { advance: duration });
  }

  // The jobs the provider holds, in creation order: { id, key, orderId } each.
  async jobs() {
    return (await this.#call('GET', '/_test/jobs')).jobs;
  }

  // Every request it saw, in order: the entries of GET /_test/journal.
  // What the provider logged once every request journaled so far has its line: the log is
  // written off the request path, in batches a few milliseconds apart (2 s at most).
  async logged() {
    const { count } = await this.#call('GET', '/_test/journal?limit=1');
    const deadline = Date.now() + 2000;
    while ((this.log.match(/\[provider\] /g) ?? []).length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.log;
  }

  async journal() {
    return (await this.#call('GET', '/_test/journal')).entries;
  }

  // Judges the traffic so far. `policy` is what your code promises, in the form of
  // --client-policy ('attempts=4,min-backoff=100ms,on-ambiguous=same-key-retry').
  async verdicts({ policy } = {}) {
    const query = policy ? `?${new URLSearchParams({ policy })}` : '';
    return new Verdicts(await this.#call('GET', `/_test/verdicts${query}`));
  }

  // Stops the provider (SIGTERM, then SIGKILL after five seconds). Idempotent.
  async stop() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  // `await using sandbox = await startSandbox()` where explicit resource management exists.
  [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    return this.stop();
  }
}

// The provider's options the helper passes itself, and what to do instead: given twice, the
// provider would only say "--port: At Most 1 required but received 2".
const MANAGED_OPTIONS = {
  '--port': 'the sandbox listens on a free port of its own (--port 0); sandbox.url says which',
  '--seed': 'pass { seed }',
  '--operation-field': "pass { operationField } ('' for none)",
};

function refuseManaged(args) {
  for (const arg of args) {
    const name = String(arg).split('=')[0];
    if (Object.hasOwn(MANAGED_OPTIONS, name)) {
      throw new SandboxError(`args: ${name} is the sandbox's own: ${MANAGED_OPTIONS[name]}`);
    }
  }
}

// Starts a provider of its own on a free loopback port. Options: binary, seed (job ids),
// operationField (the payload field that names the business operation; '' for none), args
// (more `retryproof provider` flags), startTimeoutMs.
export async function startSandbox({
  binary,
  seed = 0,
  operationField = 'orderId',
  args = [],
  startTimeoutMs = 10000,
} = {}) {
  const started = Date.now();
  refuseManaged(args);
  const command = [findBinary(binary), 'provider', '--port', '0', '--seed', String(seed)];
  if (operationField) command.push('--operation-field', operationField);
  command.push(...args.map(String));
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const collect = (chunk) => {
    log += chunk;
  };
  child.stderr.on('data', collect);
  const url = await new Promise((resolve, reject) => {
    let output = '';
    const fail = (why) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new SandboxError(`${command.join(' ')} ${why}: ${log.trim() || 'no output'}`));
    };
    const timer = setTimeout(() => fail(`did not print its URL within ${startTimeoutMs} ms`),
                             startTimeoutMs);
    child.on('error', (error) => fail(`could not start (${error.message})`));
    child.on('exit', () => setImmediate(() => fail('exited before printing its URL')));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const newline = output.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(output.slice(0, newline).trim());
    });
  });
  child.stderr.off('data', collect);
  const sandbox = new Sandbox(child, url);
  sandbox.log = log;
  child.stdout.resume(); // nothing more is printed there; keep the pipe drained anyway
  try {
    await waitUntilHealthy(sandbox, started + startTimeoutMs, startTimeoutMs);
  } catch (error) {
    await sandbox.stop();
    const log = sandbox.log.trim() || 'no output';
    throw new SandboxError(`${command.join(' ')} ${error.message}: ${log}`);
  }
  return sandbox;
}

// Resolves once GET /_test/health answers 200: the provider accepts connections. It needs no
// control token, so a provider started with --control-token answers it too.
async function waitUntilHealthy(sandbox, deadline, startTimeoutMs) {
  let last = 'no answer';
  for (;;) {
    try {
      const response = await fetch(`${sandbox.url}/_test/health`, {
        signal: AbortSignal.timeout(Math.max(deadline - Date.now(), 100)),
      });
      const text = await response.text();
      if (response.status === 200) return;
      if (response.status === 404) {
        throw new SandboxError('has no GET /_test/health (a retryproof older than this helper?)');
      }
      last = `${response.status} ${text.trim()}`;
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      last = error.cause?.message ?? error.message;
    }
    if (sandbox.child.exitCode !== null || sandbox.child.signalCode !== null) {
      const status = sandbox.child.exitCode ?? sandbox.child.signalCode;
      throw new SandboxError(`exited (${status}) while starting`);
    }
    if (Date.now() > deadline) {
      throw new SandboxError(`printed ${sandbox.url} but GET /_test/health did not answer 200 ` +
                             `within ${startTimeoutMs} ms (last: ${last})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
