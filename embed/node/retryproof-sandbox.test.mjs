// The Node sandbox against the built retryproof binary ($RETRYPROOF_BINARY), with node:test:
// "my code" is a few lines of fetch creating an order, done right and done naively.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { after, before, describe, test } from 'node:test';

import { SandboxError, startSandbox, Verdicts } from './retryproof-sandbox.mjs';

const ORDER_42 = { orderId: 'order-42', amount: 120 };

async function postOrder(baseUrl, key, order) {
  const response = await fetch(`${baseUrl}/jobs`, {
    method: 'POST',
    headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(order),
  });
  await response.text();
  return response.status;
}

// One key per order; after an answer it never saw, it asks by key before anything.
async function createSafely(baseUrl, order) {
  const key = `orders:${order.orderId}`;
  try {
    return await postOrder(baseUrl, key, order);
  } catch {
    const found = await fetch(`${baseUrl}/jobs/by-idempotency-key/${encodeURIComponent(key)}`);
    await found.text();
    return found.ok ? 200 : undefined;
  }
}

// A fresh key on every attempt, and a retry of anything that failed.
async function createNaively(baseUrl, order, attempts = 3) {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const status = await postOrder(baseUrl, `orders:${order.orderId}#${attempt}`, order);
      if (status >= 200 && status < 300) return status;
    } catch {}
  }
  return undefined;
}

describe('a sandbox per test', () => {
  test('starts on a free port and stops', async () => {
    const sandbox = await startSandbox();
    assert.match(sandbox.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await sandbox.jobs(), []);
    await sandbox.stop();
    assert.equal(sandbox.child.exitCode, 0, 'SIGTERM stops it cleanly');
    await assert.rejects(fetch(`${sandbox.url}/_test/jobs`));
    await sandbox.stop(); // idempotent
  });

  test('code that looks up after a drop keeps one job', async () => {
    const sandbox = await startSandbox();
    try {
      await sandbox.faults('commit-then-drop');
      assert.equal(await createSafely(sandbox.url, ORDER_42), 200);
      const verdicts = await sandbox.verdicts();
      assert.ok(verdicts.ok, verdicts.toString());
      assert.equal(verdicts.status('fail-closed'), 'pass');
      assert.equal((await sandbox.jobs()).length, 1);
      const journal = await sandbox.journal();
      assert.deepEqual(journal.map((entry) => entry.outcome), ['new', 'lookup_hit']);
      assert.equal(journal[0].operation, 'order-42');
      assert.match(await sandbox.logged(), /LOOKUP job=/);
    } finally {
      await sandbox.stop();
    }
  });

  test('code that mints a key per attempt is caught', async () => {
    const sandbox = await startSandbox();
    try {
      await sandbox.faults('commit-then-drop');
      assert.equal(await createNaively(sandbox.url, ORDER_42), 201);
      // It retries at once; declared, so that only what the keys did is judged here.
      const verdicts = await sandbox.verdicts({ policy: 'min-backoff=0ms' });
      assert.equal(verdicts.ok, false);
      assert.deepEqual(verdicts.failures.map((v) => v.id).sort(), [
        'key-stability',
        'no-duplicate-effect',
      ]);
      const duplicate = verdicts.failures.find((v) => v.id === 'no-duplicate-effect');
      assert.equal(duplicate.severity, 'harm');
      assert.deepEqual(duplicate.evidence, [1, 2]);
      assert.match(verdicts.toString(), /operation orderId=order-42 has 2 jobs/);
      // console.log, and a runner's report of the object: what failed and why, not the report.
      const shown = inspect(verdicts);
      assert.match(shown, /^Verdicts \{ not ok: (key-stability|no-duplicate-effect) fail, /);
      assert.match(shown, /no-duplicate-effect: fail \(harm\): operation orderId=order-42 has 2/);
      assert.doesNotMatch(shown, /: pass|scenarios/);
      assert.throws(() => assert.ok(verdicts.ok, verdicts), /no-duplicate-effect: fail \(harm\)/);
      assert.throws(() => verdicts.status('truthful-outcome'), SandboxError);
    } finally {
      await sandbox.stop();
    }
  });

  test('an undecided verdict shows its reason', () => {
    const report = {
      summary: { notMet: 1 },
      scenarios: [{
        description: 'traffic',
        verdicts: [
          { id: 'backoff', status: 'pass', severity: 'defect', explanation: '', evidence: [] },
          { id: 'fail-closed', status: 'inconclusive', severity: 'harm',
            explanation: 'seq 3 is missing', reason: 'seq 3 is missing', evidence: [] },
        ],
        inconclusive: [{ reason: 'the journal dropped 1 entry', verdict: null }],
      }],
    };
    const verdicts = new Verdicts(report);
    assert.equal(verdicts.ok, false);
    assert.deepEqual(verdicts.inconclusive.map((v) => v.id), ['fail-closed']);
    assert.equal(inspect(verdicts), 'Verdicts { not ok: fail-closed inconclusive\n' +
                                    '  fail-closed: inconclusive: seq 3 is missing }');
    assert.deepEqual(verdicts.toString().split('\n').slice(1), [
      '  backoff: pass', '  fail-closed: inconclusive: seq 3 is missing',
      '  inconclusive: the journal dropped 1 entry']);
    report.summary.notMet = 0;
    report.scenarios[0].verdicts.pop();
    assert.equal(inspect(new Verdicts(report)), 'Verdicts { ok: 1 judged from traffic }');
  });

  test('a typo in a fault is refused in the provider\'s words', async () => {
    const sandbox = await startSandbox();
    try {
      await assert.rejects(sandbox.faults('comit-then-drop'),
                           /faults\[0\]: unknown fault "comit-then-drop"/);
    } finally {
      await sandbox.stop();
    }
  });

  test('a missing binary, and a provider that cannot start, say why', async () => {
    await assert.rejects(startSandbox({ binary: '/nonexistent/retryproof' }),
                         /not an executable file/);
    await assert.rejects(startSandbox({ args: ['--plan', '/nonexistent/plan.json'] }),
                         /exited before printing its URL.*--plan/s);
  });

  test('the options the sandbox passes itself are refused in args', async () => {
    for (const [args, says] of [
      [['--port', '4040'], /^args: --port is the sandbox's own: .*sandbox\.url/],
      [['--seed=7'], /^args: --seed is the sandbox's own: pass \{ seed \}/],
      [['--api', 'stripe', '--operation-field', 'id'],
       /^args: --operation-field is the sandbox's own: pass \{ operationField \}/],
    ]) {
      await assert.rejects(startSandbox({ args }), (error) => {
        assert.ok(error instanceof SandboxError);
        assert.match(error.message, says);
        return true;
      });
    }
  });

  test('it waits on the health check, which needs no token', async () => {
    const sandbox = await startSandbox({ args: ['--control-token', 'T'] });
    try {
      await assert.rejects(sandbox.jobs(), /401/); // the rest of the control plane needs it
    } finally {
      await sandbox.stop();
    }
  });

  test('a URL that never answers the health check says so', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'retryproof-sandbox-'));
    const fake = join(directory, 'retryproof'); // prints a URL nobody listens on, then waits
    writeFileSync(fake, '#!/bin/sh\necho http://127.0.0.1:1\nexec sleep 30\n', { mode: 0o755 });
    try {
      await assert.rejects(startSandbox({ binary: fake, startTimeoutMs: 500 }),
                           /did not answer 200 within 500 ms/);
    } finally {
      rmSync(directory, { recursive: true });
    }
  });
});

describe('one sandbox for a suite, reset between tests', () => {
  let sandbox;
  before(async () => {
    sandbox = await startSandbox({ seed: 7 });
  });
  after(() => sandbox.stop());

  test('the declared policy is what the verdicts judge by', async () => {
    await sandbox.reset();
    await sandbox.faults('fail-before-commit');
    assert.equal(await postOrder(sandbox.url, 'k', ORDER_42), 503);
    assert.equal(await postOrder(sandbox.url, 'k', ORDER_42), 201); // at once
    assert.equal((await sandbox.verdicts()).status('backoff'), 'fail');
    assert.ok((await sandbox.verdicts({ policy: 'min-backoff=0ms' })).ok);
    const budget = await sandbox.verdicts({ policy: 'attempts=1,min-backoff=0ms' });
    assert.equal(budget.status('attempt-budget'), 'fail');
    await assert.rejects(sandbox.verdicts({ policy: 'attempts=two' }), /400/);
  });

  test('reset empties the jobs and the journal', async () => {
    await sandbox.reset();
    await postOrder(sandbox.url, 'k', ORDER_42);
    assert.equal((await sandbox.journal()).length, 1);
    await sandbox.reset();
    assert.deepEqual(await sandbox.jobs(), []);
    assert.deepEqual(await sandbox.journal(), []);
  });
});
