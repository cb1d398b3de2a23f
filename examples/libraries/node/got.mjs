// got, with its built-in retry. Its default retry.methods leave POST out (not idempotent);
// the docs' way to retry one is to list it: retry: { limit, methods: ["POST"] }. Everything
// else is got's default: statusCodes 408 413 429 500 502 503 504 521 522 524, errorCodes
// ETIMEDOUT ECONNRESET EPIPE ECONNREFUSED..., delay 1000 * 2^(n-1) ms + up to 100 ms noise,
// Retry-After honoured.
import got, { HTTPError } from "got";
import { operation, outcomeOf, unknownAfter, report, log } from "./contract.mjs";

const { baseUrl, key, payload } = operation();
try {
  const job = await got.post(`${baseUrl}/jobs`, {
    json: payload,
    headers: { "Idempotency-Key": key },
    timeout: { request: 1000 },
    retry: { limit: 2, methods: ["POST"] },
    hooks: { beforeRetry: [(error, n) => log(`retry ${n} after ${error.code}`)] },
  }).json();
  report(outcomeOf(201, job, key));
} catch (error) {
  if (error instanceof HTTPError) {
    let body;
    try { body = JSON.parse(error.response.body); } catch { body = undefined; }
    report(outcomeOf(error.response.statusCode, body, key));
  } else {
    report(unknownAfter(error, key));
  }
}
