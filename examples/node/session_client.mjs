#!/usr/bin/env node
// A session client for retryproof's provider (Node 18+, built-in fetch, no npm
// dependencies): one long-lived JobsSession serves every operation of the instance, as a
// service keeps one SDK client for thousands of calls; embed/node/retryproof-session.mjs's
// serve() reads the operations from standard input, runs them concurrently and writes the
// tagged outcome lines (docs/sessions.md).
//
// Each operation: the idempotency key is the operationId, the same body on every attempt, at
// most RETRYPROOF_CLIENT's attempts POSTs with capped, jittered backoff, and a lookup by key
// after any answer it could not see. A rerun after a crash (the harness resends the operation
// to the next instance) sends the same key, so the provider replays the job it made, or the
// lookup finds it: never a second job.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { serve } from '../../embed/node/retryproof-session.mjs';

// A jitter in [0, 1) that replays: a hash of the instance's seed, the operation and the attempt.
const jitter = (...parts) => createHash('sha256').update(parts.join(':')).digest().readUInt32BE(0) / 2 ** 32;

class JobsSession {
  constructor(baseUrl, settings, seed) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
    this.attempts = settings.attempts ?? 3;
    this.timeoutMs = settings.timeoutMs ?? 1000;
    this.baseMs = settings.baseDelayMs ?? 100;
    this.capMs = settings.maxDelayMs ?? 1000;
    this.seed = seed;
    this.requests = 0;  // what the instance has sent, for its log
  }

  // {status, body} or {failure}: fetch's pool is the instance's, shared by every operation.
  async send(method, path, { body, headers } = {}) {
    this.requests += 1;
    try {
      const response = await fetch(this.baseUrl + path, { method, body, headers, signal: AbortSignal.timeout(this.timeoutMs) });
      return { status: response.status, body: await response.text(),
               retryAfterMs: 1000 * (Number(response.headers.get('retry-after')) || 0) };
    } catch (error) {
      return { failure: error?.cause?.code ?? error?.name ?? String(error) };
    }
  }

  async create(operationId, payload) {
    const body = JSON.stringify(payload);
    const headers = { 'Idempotency-Key': operationId, 'Content-Type': 'application/json' };
    let inFlight = false;  // a 409: a request with this key may still commit
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      const posted = await this.send('POST', '/jobs', { body, headers });
      if (posted.status === 200 || posted.status === 201) return ['succeeded', JSON.parse(posted.body).id];
      if (posted.status >= 400 && posted.status < 500 && ![409, 429].includes(posted.status)) {
        return ['failed', `rejected: ${posted.status}`];
      }
      if (posted.status === 409) inFlight = true;
      if (![409, 429, 503].includes(posted.status) || attempt === this.attempts) {  // it may have committed
        const found = await this.send('GET', `/jobs/by-idempotency-key/${encodeURIComponent(operationId)}`);
        if (found.status === 200) return ['succeeded', JSON.parse(found.body).id];
        if (found.status !== 404) return ['unknown', `the lookup failed: ${found.status ?? found.failure}`];
      }
      if (attempt < this.attempts) {
        const step = Math.min(this.capMs, this.baseMs * 2 ** (attempt - 1));
        // Never sooner than a 429's Retry-After, and jittered on top of it, so that a fleet told
        // to come back in a second does not come back in the same millisecond.
        const told = posted.status === 429 ? posted.retryAfterMs ?? 0 : 0;
        await sleep(Math.max(step / 2, told) + jitter(this.seed, operationId, attempt) * (step / 2));
      }
    }
    return inFlight ? ['unknown', 'still in flight when the attempts ran out']
      : ['failed', `not committed after ${this.attempts} attempts`];
  }
}

const jobs = new JobsSession(process.env.RETRYPROOF_BASE_URL, JSON.parse(process.env.RETRYPROOF_CLIENT || '{}'),
                             process.env.RETRYPROOF_SEED ?? '0');
await serve((operationId, payload) => jobs.create(operationId, payload));
process.stderr.write(`[node-session ${process.env.RETRYPROOF_SERVICE_INSTANCE}.${process.env.RETRYPROOF_INSTANCE}] ${jobs.requests} requests\n`);
