// A long-lived service's client on cockatiel: one instance's policies serve every operation
// it is sent (the session contract, docs/sessions.md), composed as cockatiel's README shows:
// wrap(retry, circuitBreaker) — "a policy that retries 3 times, calling through the circuit
// breaker" — with the README's ConsecutiveBreaker(5) and halfOpenAfter of 10 s. The breaker
// lives as long as the instance, so in a long outage it opens after five failures in a row
// and the instance stops sending, probing once every 10 s, instead of every operation
// spending its own retries. The safe pattern is careful.mjs's, as in cockatiel-careful.mjs:
// only PreCommit is retried, an unseen outcome is looked up inside the attempt.
// Judge it with --client-policy attempts=3,min-backoff=50ms,timeout=1s (lookup-first).
import {
  retry, circuitBreaker, wrap, handleType, ConsecutiveBreaker, ExponentialBackoff,
  DelegateBackoff, BrokenCircuitError, halfJitterGenerator,
} from "cockatiel";
import { serve } from "../../../embed/node/retryproof-session.mjs";
import { Definitive, Intent, LookupFailed, PreCommit, classify, lookup, neverSent } from "./careful.mjs";

const baseUrl = process.env.RETRYPROOF_BASE_URL;
const stateDir = process.env.RETRYPROOF_STATE_DIR || ".intents";

const jitter = new ExponentialBackoff({ generator: halfJitterGenerator, initialDelay: 100, maxDelay: 2000 });
const backoff = new DelegateBackoff((context, step) => {
  const next = step ? step.next(context) : jitter.next(context);
  return { delay: Math.max(next.duration, context.result.error?.retryAfterMs ?? 0), state: next };
});
const retryPolicy = retry(handleType(PreCommit), { maxAttempts: 2, backoff });
const breaker = circuitBreaker(handleType(PreCommit), {
  halfOpenAfter: 10 * 1000,
  breaker: new ConsecutiveBreaker(5),
});
const policy = wrap(retryPolicy, breaker); // the instance's, for every operation

async function createOrFind(key, payload, state) {
  let response;
  try {
    response = await fetch(`${baseUrl}/jobs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(1000),
    });
  } catch (error) {
    if (neverSent(error)) throw new PreCommit(error.cause?.code ?? error.code);
    state.inDoubt ||= error?.name === "TimeoutError";
    return find(key, state, `${error?.name}: ${error?.cause?.code ?? error?.message}`);
  }
  state.inDoubt ||= response.status === 409;
  return (await classify(response)) ?? find(key, state, `HTTP ${response.status}`);
}

async function find(key, state, reason) {
  const job = await lookup(baseUrl, key);
  if (job && state.earlier === "other-payload") {
    throw new LookupFailed(`${job} is stored under this key, which an earlier run sent with another payload`);
  }
  if (!job) throw new PreCommit(`${reason}; the lookup found nothing stored`);
  return job;
}

async function handle(key, payload) {
  const intent = new Intent(stateDir, key, payload);
  const state = { earlier: intent.earlier(), inDoubt: false, sent: false };
  if (state.earlier?.jobId) return ["succeeded", state.earlier.jobId]; // confirmed: send nothing
  try {
    let job = state.earlier === "sent" ? await lookup(baseUrl, key) : undefined;
    if (!job) {
      intent.save();
      job = await policy.execute(() => {
        state.sent = true;
        return createOrFind(key, payload, state);
      });
    }
    intent.save(job);
    return ["succeeded", job];
  } catch (error) {
    if (error instanceof Definitive) return ["failed", error.message];
    if (error instanceof BrokenCircuitError && !state.sent && state.earlier !== "sent") {
      return ["failed", "the circuit is open: nothing was sent"];
    }
    // Retries spent, or the breaker opened between them: what was sent may have committed.
    if (!(error instanceof PreCommit) && !(error instanceof BrokenCircuitError)) {
      return ["unknown", error.message]; // fail closed
    }
    try { // the retries are spent: a 503 may follow a commit, so ask once more
      const job = await find(key, state, error.message);
      intent.save(job);
      return ["succeeded", job];
    } catch (last) {
      if (last instanceof PreCommit && !state.inDoubt) return ["failed", `not stored (${error.message})`];
      return ["unknown", last.message];
    }
  }
}

await serve(handle);
