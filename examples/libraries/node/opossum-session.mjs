// A long-lived service's client on opossum 10.0.0, a circuit breaker: one breaker per instance
// (this process), shared by every operation it is sent (the session contract,
// docs/sessions.md), built as the first example of opossum's README ("Usage") shows:
// new CircuitBreaker(fn, { timeout: 3000, errorThresholdPercentage: 50, resetTimeout: 30000 })
// and breaker.fire(...), nothing more (no volumeThreshold, errorFilter or fallback). So it opens
// when more than half the calls of its rolling 10 s window failed (the first failure of an
// empty window opens it), refuses every call for 30 s, then lets one through, whose success
// closes it and whose failure opens it again.
//
// opossum does not retry. The retries are careful.mjs's safe pattern, each attempt fired
// through the breaker: one key per operation, the same payload, only PreCommit retried (three
// creates at most, half-jittered backoff from 100 ms, never sooner than Retry-After), a
// lookup by key after an outcome it could not see, unknown when nothing can be proven.
// Judge it with --client-policy attempts=3,min-backoff=50ms,timeout=3s,breaker=26/30s. opossum
// has no count of failures in a row: it opens at the failure that makes failures more than half
// of its window's calls: the 26th to 29th in a row in scenarios/traffic/02-long-outage.json, 4
// operations a second per instance (examples/libraries/FINDINGS.md). OPOSSUM_EVENTS=FILE appends each
// breaker's opening and closing to FILE, for reading a run.
import { appendFileSync } from "node:fs";
import { createHash } from "node:crypto";
import CircuitBreaker from "opossum";
import { serve } from "../../../embed/node/retryproof-session.mjs";
import { Definitive, Intent, LookupFailed, PreCommit, classify, lookup, neverSent } from "./careful.mjs";

const baseUrl = process.env.RETRYPROOF_BASE_URL;
const stateDir = process.env.RETRYPROOF_STATE_DIR || ".intents";
const seed = process.env.RETRYPROOF_SEED ?? "0";
const ATTEMPTS = 3;

// The create's answer could not be seen (a drop, a 500, a body cut short): it may have committed.
class Unseen extends Error {}

// What the breaker wraps: one create. `run` says to the operation that it was sent.
async function create(key, payload, run) {
  run.sent = true;
  let response;
  try {
    response = await fetch(`${baseUrl}/jobs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(payload),
      signal: run.abort.signal,
    });
  } catch (error) {
    if (neverSent(error)) throw new PreCommit(error.cause?.code ?? error.code);
    throw new Unseen(`${error?.name}: ${error?.cause?.code ?? error?.message}`);
  }
  const job = await classify(response);
  if (!job) throw new Unseen(`HTTP ${response.status}`);
  return job;
}

const breaker = new CircuitBreaker(create, {
  timeout: 3000, // If our function takes longer than 3 seconds, trigger a failure
  errorThresholdPercentage: 50, // When 50% of requests fail, trip the circuit
  resetTimeout: 30000, // After 30 seconds, try again.
});
// opossum stops waiting at its timeout but leaves the request running: end it, so that the
// lookup that follows does not race this operation's own create.
breaker.on("timeout", (_error, _latency, [, , run]) => run.abort.abort());

if (process.env.OPOSSUM_EVENTS) {
  let inARow = 0; // failures since the last success: what opening took
  breaker.on("success", () => { inARow = 0; });
  breaker.on("failure", () => { inARow += 1; });
  for (const event of ["open", "halfOpen", "close"]) {
    breaker.on(event, () => {
      const { fires, failures, successes, rejects } = breaker.stats; // its rolling window's
      const window = JSON.stringify({ fires, failures, successes, rejects });
      appendFileSync(process.env.OPOSSUM_EVENTS, `${Date.now()} pid ${process.pid} ${event} ` +
                     `after ${inARow} failures in a row, window ${window}\n`);
    });
  }
}

// Half jitter, [base/2, base), from 100 ms capped at 2 s; seeded, so that --seed replays it.
function backoffMs(key, retry, retryAfterMs) {
  const base = Math.min(2000, 100 * 2 ** (retry - 1));
  const u = createHash("sha256").update(`${seed}:${key}:${retry}`).digest().readUInt32BE(0) / 2 ** 32;
  return Math.max(base / 2 + u * (base / 2), retryAfterMs);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function handle(key, payload) {
  const intent = new Intent(stateDir, key, payload);
  const earlier = intent.earlier();
  if (earlier?.jobId) return ["succeeded", earlier.jobId]; // confirmed: send nothing
  const run = { sent: earlier === "sent", abort: null };
  // A create may still commit (one timed out, one in flight, a killed run's): a 404 proves nothing.
  let inDoubt = run.sent;
  const found = (job) => { intent.save(job); return ["succeeded", job]; };
  // After an unseen outcome: the key's job, or undefined (nothing stored).
  const find = async () => {
    const job = await lookup(baseUrl, key);
    if (job && earlier === "other-payload") {
      throw new LookupFailed(`${job} is stored under this key, which an earlier run sent with another payload`);
    }
    return job;
  };
  // Stopped short (retries spent, or the breaker open): failed only if nothing can have committed.
  const stop = async (why) => {
    if (!inDoubt) return ["failed", run.sent ? `not stored (${why})` : `${why}: nothing was sent`];
    const job = await find();
    return job ? found(job) : ["unknown", `${why}; the lookup found nothing stored yet`];
  };
  try {
    if (earlier === "sent") {
      const job = await find();
      if (job) return found(job);
    }
    intent.save();
    let why;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (attempt > 1) await sleep(backoffMs(key, attempt - 1, why?.retryAfterMs ?? 0));
      run.abort = new AbortController();
      try {
        return found(await breaker.fire(key, payload, run));
      } catch (error) {
        if (error instanceof Definitive) return ["failed", error.message];
        if (error?.code === "EOPENBREAKER") return await stop("the circuit is open");
        if (error instanceof PreCommit) {
          inDoubt ||= error.message === "HTTP 409"; // another attempt of this key still in flight
          why = error;
          continue;
        }
        // Unseen, or opossum's timeout: look the key up before anything else.
        inDoubt ||= error?.code === "ETIMEDOUT";
        const job = await find();
        if (job) return found(job);
        why = new PreCommit(`${error?.message}; the lookup found nothing stored`);
      }
    }
    return await stop(`${ATTEMPTS} attempts: ${why.message}`);
  } catch (error) {
    return ["unknown", error?.message ?? String(error)]; // a lookup that could not answer: fail closed
  }
}

await serve(handle);
