// The page's model (ui/assets/model.js) in node, without a browser: what the rates count.
// An operation evicted (its attempts dropped to bound the page's memory) and seen again is
// the same operation: counted once, its job kept, so that a second job still makes it a
// duplicate.
//
//   node --test ui/tests/model/journal_model.test.mjs
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

createRequire(import.meta.url)('../../assets/model.js');
const { JournalModel } = globalThis.RetryproofModel;

let seq = 0;
function create(key, { operation = null, jobId = 'job-' + key, outcome = 'new' } = {}) {
  seq += 1;
  return {
    seq, atMs: seq * 10, answeredAtMs: seq * 10 + 1, kind: 'create', key, operation,
    outcome, jobId, status: outcome === 'new' ? 201 : 200, delivery: 'respond',
  };
}
function lookup(key, jobId) {
  seq += 1;
  return {
    seq, atMs: seq * 10, answeredAtMs: seq * 10 + 1, kind: 'lookup', key, operation: null,
    outcome: 'lookup_found', jobId, status: 200, delivery: 'respond',
  };
}

test('an operation evicted and seen again by its key is counted once', () => {
  const model = new JournalModel({ maxOperations: 2 });
  model.add([create('a'), create('b'), create('c')]);  // a is evicted
  assert.equal(model.totals().evicted, 1);
  model.add([create('a', { outcome: 'replay', jobId: 'job-a' })]);
  const totals = model.totals();
  assert.equal(totals.operations, 3);
  assert.equal(totals.succeeded, 3);
  assert.equal(totals.duplicated, 0);
  assert.equal(totals.successRate, 1);
  const a = model.operations().find((op) => op.label === 'a');
  assert.equal(a.omitted, 1, 'its attempt from before the eviction is counted, not kept');
});

test('a lookup finds an evicted operation by its create key, under --operation-field', () => {
  const model = new JournalModel({ maxOperations: 1 });
  model.add([create('key-1', { operation: 'order-1' }), create('key-2', { operation: 'order-2' })]);
  model.add([lookup('key-1', 'job-key-1')]);
  assert.equal(model.totals().operations, 2);
  assert.deepEqual(model.operations()[0].lookedUp, ['job-key-1']);
  assert.equal(model.operations()[0].label, 'order-1');
});

test('an evicted operation that creates a second job is a duplicate, counted once', () => {
  const model = new JournalModel({ maxOperations: 1 });
  model.add([create('k1', { operation: 'order-9', jobId: 'job-1' }), create('other')]);
  model.add([create('k2', { operation: 'order-9', jobId: 'job-2' })]);
  const totals = model.totals();
  assert.equal(totals.operations, 2);
  assert.equal(totals.duplicated, 1);
  assert.equal(totals.succeeded, 2);
  assert.deepEqual(model.duplicated()[0].jobs, ['job-1', 'job-2']);
});

test('past maxRemembered evictions, the oldest is forgotten and counts again', () => {
  const model = new JournalModel({ maxOperations: 1, maxRemembered: 1 });
  model.add([create('a'), create('b'), create('c')]);  // a, then b evicted: a forgotten
  model.add([create('a', { outcome: 'replay' })]);  // evicts c
  assert.equal(model.totals().operations, 4);
  model.add([create('c', { outcome: 'replay' })]);  // remembered: the same operation
  assert.equal(model.totals().operations, 4);
});

test('a provider with a capacity: each second counts what it shed and its deepest queue', () => {
  const model = new JournalModel();
  const queued = (atMs, depth, outcome = 'new') => {
    seq += 1;
    return {
      seq, atMs, answeredAtMs: atMs + 1, kind: 'create', key: 'q' + seq, operation: null, outcome,
      jobId: outcome === 'new' ? 'job-q' + seq : null, status: outcome === 'new' ? 201 : 503,
      delivery: 'respond', queue: { depth, waitMs: depth * 10 },
    };
  };
  const entries = [queued(100, 3), queued(900, 7), queued(1200, 400, 'shed'),
    queued(1300, 400, 'shed'), queued(1400, 12)];
  const unqueued = create('plain');  // a provider without a capacity journals no queue
  unqueued.atMs = 2500;
  model.add(entries.concat([unqueued]));
  const [first, second, third] = model.buckets();
  assert.deepEqual([first.second, first.shed, first.queue], [0, 0, 7], 'the deepest, not a sum');
  assert.deepEqual([second.second, second.shed, second.queue], [1, 2, 400]);
  assert.equal(second.counts.failed, 2, 'a shed request still counts as failed in the stack');
  assert.deepEqual([third.second, third.shed, third.queue], [2, 0, null], 'no capacity: no queue');
});
