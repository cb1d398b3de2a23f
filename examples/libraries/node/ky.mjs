// ky, with its built-in retry. Its default retry.methods leave POST out; the docs' way to
// retry one is to list it: retry: { limit, methods: ["post"] }. Everything else is ky's
// default: statusCodes 408 413 429 500 502 503 504, Retry-After honoured on 413 429 503,
// delay 0.3 s * 2^(n-1), network errors retried, its own timeouts not (retryOnTimeout: false).
import ky, { HTTPError } from "ky";
import { operation, outcomeOf, unknownAfter, report, log } from "./contract.mjs";

const { baseUrl, key, payload } = operation();
try {
  const job = await ky.post(`${baseUrl}/jobs`, {
    json: payload,
    headers: { "Idempotency-Key": key },
    timeout: 1000,
    retry: { limit: 2, methods: ["post"] },
    hooks: { beforeRetry: [({ error, retryCount }) => log(`retry ${retryCount} after ${error.name} ${error.response?.status ?? error.cause?.code ?? ""}`)] },
  }).json();
  report(outcomeOf(201, job, key));
} catch (error) {
  if (error instanceof HTTPError) {
    const body = await error.response.json().catch(() => undefined);
    report(outcomeOf(error.response.status, body, key));
  } else {
    report(unknownAfter(error, key));
  }
}
