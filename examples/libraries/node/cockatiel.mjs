// cockatiel: a retry policy around fetch, as its README shows:
// retry(handler, { maxAttempts: 3, backoff: new ExponentialBackoff() }) and policy.execute().
// maxAttempts counts retries (3 means up to 4 calls). The backoff is its default: decorrelated
// jitter from 128 ms, capped at 30 s. The handler retries everything but a definitive 4xx.
import { retry, handleWhen, ExponentialBackoff } from "cockatiel";
import { operation, outcomeOf, unknownAfter, report, log } from "./contract.mjs";

class HttpStatus extends Error {
  constructor(status, body) { super(`HTTP ${status}`); Object.assign(this, { status, body }); }
}
const definitive = (error) =>
  error instanceof HttpStatus && error.status < 500 && ![408, 409, 429].includes(error.status);

const { baseUrl, key, payload } = operation();
const policy = retry(handleWhen((error) => !definitive(error)), {
  maxAttempts: 3,
  backoff: new ExponentialBackoff(),
});
policy.onRetry(({ delay, attempt, error }) => log(`retry ${attempt} in ${delay.toFixed(0)} ms after ${error?.message}`));

try {
  const job = await policy.execute(async () => {
    const response = await fetch(`${baseUrl}/jobs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(1000),
    });
    if (!response.ok) throw new HttpStatus(response.status, await response.json().catch(() => undefined));
    return response.json();
  });
  report(outcomeOf(201, job, key));
} catch (error) {
  report(error instanceof HttpStatus ? outcomeOf(error.status, error.body, key) : unknownAfter(error, key));
}
