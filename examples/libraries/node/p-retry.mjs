// p-retry around fetch, as its README shows: pRetry(run, { retries: 5 }), and an AbortError
// for an answer no retry can change. Everything else is p-retry's default: 1 s, 2 s, 4 s...
// (factor 2, no randomisation); fetch's network errors are retried. The run throws on a
// non-2xx answer so that p-retry sees it; a 4xx but 408/409/429 aborts.
import pRetry, { AbortError } from "p-retry";
import { operation, outcomeOf, unknownAfter, report, log } from "./contract.mjs";

class HttpStatus extends Error {
  constructor(status, body) { super(`HTTP ${status}`); Object.assign(this, { status, body }); }
}

const { baseUrl, key, payload } = operation();
const run = async () => {
  const response = await fetch(`${baseUrl}/jobs`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": key },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(1000),
  });
  if (response.ok) return response.json();
  const error = new HttpStatus(response.status, await response.json().catch(() => undefined));
  if (response.status < 500 && ![408, 409, 429].includes(response.status)) throw new AbortError(error);
  throw error;
};

try {
  const job = await pRetry(run, {
    retries: 5,
    onFailedAttempt: ({ error, attemptNumber }) => log(`attempt ${attemptNumber} failed: ${error.message}`),
  });
  report(outcomeOf(201, job, key));
} catch (error) {
  report(error instanceof HttpStatus ? outcomeOf(error.status, error.body, key) : unknownAfter(error, key));
}
