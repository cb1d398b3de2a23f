// retryproof-session.mjs's serve() on streams, with node:test: tagged answers, malformed
// lines, a handler that throws, the bound on operations at once, and operations run together.
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { test } from 'node:test';

import { serve } from './retryproof-session.mjs';

function collector() {
  const chunks = [];
  const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } });
  stream.text = () => chunks.join('');
  return stream;
}

async function served(handler, lines, options = {}) {
  const output = collector();
  const errors = collector();
  const input = Readable.from(lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`));
  await serve(handler, { input, output, errors, ...options });
  const answers = {};
  for (const line of output.text().split('\n').filter(Boolean)) {
    const { id, ...answer } = JSON.parse(line);
    assert.equal(answers[id], undefined, `a second answer for ${id}`);
    answers[id] = answer;
  }
  return { answers, errors: errors.text() };
}

const operations = (count) => Array.from({ length: count }, (_, n) => ({ id: `a-${n}`, operationId: `op-${n}`, payload: { n } }));

test('each operation is answered once, tagged with its id', async () => {
  const { answers } = await served(async (operationId, payload) => ['succeeded', `job-${operationId}-${payload.n}`], operations(10));
  assert.deepEqual(answers, Object.fromEntries(operations(10).map(({ id, operationId, payload }) =>
    [id, { outcome: 'succeeded', jobId: `job-${operationId}-${payload.n}` }])));
});

test('a handler that throws is answered unknown', async () => {
  const { answers, errors } = await served(async () => { throw new Error('the provider went away'); }, operations(1));
  assert.deepEqual(answers['a-0'], { outcome: 'unknown', reason: 'client error: the provider went away' });
  assert.match(errors, /the provider went away/);
});

test('malformed lines are named, and answered failed when their id is read', async () => {
  const { answers, errors } = await served(async () => ['failed', 'validation'], [
    'not json', '[1]', { id: 'p', operationId: 'op', payload: 3 }, { id: 'q' },
    { id: 'ok', operationId: 'op' }, { id: 'ok', operationId: 'op' }]);
  assert.deepEqual(answers, {
    p: { outcome: 'failed', reason: 'malformed operation: "payload" must be a JSON object' },
    q: { outcome: 'failed', reason: 'malformed operation: "operationId" must be a non-empty string' },
    ok: { outcome: 'failed', reason: 'validation' },
  });
  for (const said of ['input line 1: not JSON', 'input line 2: not a JSON object', 'input line 6: the id "ok" was sent before']) {
    assert.ok(errors.includes(said), `${said} in ${errors}`);
  }
});

test('operations run together, at most maxInFlight at once, and every one is answered', async () => {
  let running = 0;
  let most = 0;
  let release;
  const fiveRunning = new Promise((resolve) => { release = resolve; });
  const { answers } = await served(async (operationId) => {
    running += 1;
    most = Math.max(most, running);
    if (running === 5) release();
    await fiveRunning;  // never resolves, and the test times out, if they ran one by one
    await new Promise((resolve) => setImmediate(resolve));
    running -= 1;
    return ['succeeded', `job-${operationId}`];
  }, operations(12), { maxInFlight: 5 });
  assert.equal(most, 5);
  assert.equal(Object.keys(answers).length, 12);
});
