// A careful client on cockatiel around fetch: the safe pattern of careful.mjs, with cockatiel
// doing every retry, configured as its README shows: retry(handleType(...), { maxAttempts,
// backoff }) and policy.execute(). maxAttempts: 2 counts retries (3 calls at most). The
// backoff is the README's ExponentialBackoff with halfJitterGenerator ("jitters between
// [interval / 2, interval)") from 100 ms, capped at 2 s, so never under 50 ms; cockatiel's
// backoffs do not read Retry-After, so a DelegateBackoff (the README's escape hatch) waits
// the longer of the jitter's step and what a 429 asked. Only PreCommit is retried; an unseen
// outcome is looked up inside the attempt, before anything else.
// Judge it with --client-policy attempts=3,min-backoff=50ms,timeout=1s (lookup-first).
import { retry, handleType, ExponentialBackoff, DelegateBackoff, halfJitterGenerator } from "cockatiel";
import { operation, report, log } from "./contract.mjs";
import { Definitive, Intent, LookupFailed, PreCommit, classify, lookup, neverSent } from "./careful.mjs";

const { baseUrl, key, payload } = operation();
const intent = new Intent(process.env.RETRYPROOF_STATE_DIR || ".intents", key, payload);
const earlier = intent.earlier();
let inDoubt = false; // a request timed out or met one in flight: a 404 later is no proof of none

const jitter = new ExponentialBackoff({ generator: halfJitterGenerator, initialDelay: 100, maxDelay: 2000 });
const backoff = new DelegateBackoff((context, step) => {
  const next = step ? step.next(context) : jitter.next(context);
  return { delay: Math.max(next.duration, context.result.error?.retryAfterMs ?? 0), state: next };
});
const policy = retry(handleType(PreCommit), { maxAttempts: 2, backoff });
policy.onRetry(({ delay, attempt, error }) => log(`retry ${attempt} in ${delay.toFixed(0)} ms after ${error?.message}`));

// After an outcome this attempt could not see: the key's job, or PreCommit (nothing stored).
async function find(reason) {
  const job = await lookup(baseUrl, key);
  if (job && earlier === "other-payload") {
    throw new LookupFailed(`${job} is stored under this key, which an earlier run sent with another payload`);
  }
  if (!job) throw new PreCommit(`${reason}; the lookup found nothing stored`);
  return job;
}

async function createOrFind() {
  let response;
  try {
    response = await fetch(`${baseUrl}/jobs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(1000),
    });
  } catch (error) {
    log(`POST: ${error?.name} ${error?.cause?.code ?? ""} ${error?.cause?.message ?? error?.message}`);
    if (neverSent(error)) throw new PreCommit(error.cause?.code ?? error.code);
    inDoubt ||= error?.name === "TimeoutError";
    return find(`${error?.name}: ${error?.cause?.code ?? error?.message}`);
  }
  inDoubt ||= response.status === 409;
  return (await classify(response)) ?? find(`HTTP ${response.status}`);
}

async function main() {
  if (earlier?.jobId) return { outcome: "succeeded", jobId: earlier.jobId }; // confirmed: send nothing
  let job;
  try {
    if (earlier === "sent") job = await lookup(baseUrl, key); // an earlier run never learnt the outcome
    if (!job) {
      intent.save();
      job = await policy.execute(createOrFind);
    }
  } catch (error) {
    if (error instanceof Definitive) return { outcome: "failed", reason: error.message };
    if (!(error instanceof PreCommit)) {
      return { outcome: "unknown", idempotencyKey: key, reason: error.message }; // fail closed
    }
    try { // the budget is spent: a 503 may follow a commit, so ask once more
      job = await find(error.message);
    } catch (last) {
      if (last instanceof PreCommit && !inDoubt) {
        return { outcome: "failed", reason: `not stored after 3 attempts (${error.message})` };
      }
      return { outcome: "unknown", idempotencyKey: key, reason: last.message };
    }
  }
  intent.save(job);
  return { outcome: "succeeded", jobId: job };
}

try {
  report(await main());
} catch (error) { // never die without an outcome line
  log(error?.stack ?? String(error));
  report({ outcome: "unknown", idempotencyKey: key, reason: "unexpected client error" });
}
