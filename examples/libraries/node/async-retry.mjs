// async-retry around fetch, as its README shows: retry(async (bail) => {...}, { retries: 5 }),
// bail() for an answer no retry can change, "if anything throws, we retry". Everything else
// is async-retry's default: factor 2, minTimeout 1 s, randomize true (each delay times 1..2).
import retry from "async-retry";
import { operation, outcomeOf, unknownAfter, report, log } from "./contract.mjs";

class HttpStatus extends Error {
  constructor(status, body) { super(`HTTP ${status}`); Object.assign(this, { status, body }); }
}

const { baseUrl, key, payload } = operation();
try {
  const job = await retry(async (bail) => {
    const response = await fetch(`${baseUrl}/jobs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(1000),
    });
    if (response.ok) return response.json();
    const body = await response.json().catch(() => undefined);
    if (response.status < 500 && ![408, 409, 429].includes(response.status)) {
      bail(new HttpStatus(response.status, body)); // don't retry a definitive refusal
      return;
    }
    throw new HttpStatus(response.status, body);
  }, { retries: 5, onRetry: (error, n) => log(`retry ${n} after ${error.message}`) });
  report(outcomeOf(201, job, key));
} catch (error) {
  report(error instanceof HttpStatus ? outcomeOf(error.status, error.body, key) : unknownAfter(error, key));
}
