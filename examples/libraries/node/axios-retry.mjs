// axios + axios-retry, as its README shows: axiosRetry(client, { retries, retryDelay:
// axiosRetry.exponentialDelay }). Its default retryCondition retries network errors on any
// method but 5xx only on idempotent ones; to retry a POST on 429/5xx too, the README's way
// is a custom retryCondition built from its own predicates.
import axios from "axios";
import axiosRetry from "axios-retry";
import { operation, outcomeOf, unknownAfter, report, log } from "./contract.mjs";

const { baseUrl, key, payload } = operation();
const client = axios.create({ baseURL: baseUrl, timeout: 1000 });
axiosRetry(client, {
  retries: 3,
  retryDelay: axiosRetry.exponentialDelay, // 2^n * 100 ms + up to 20 %; honours Retry-After
  retryCondition: (error) => axiosRetry.isNetworkError(error) || axiosRetry.isRetryableError(error),
  onRetry: (n, error) => log(`retry ${n} after ${error.code ?? error.response?.status}`),
});

try {
  const response = await client.post("/jobs", payload, { headers: { "Idempotency-Key": key } });
  report(outcomeOf(response.status, response.data, key));
} catch (error) {
  report(error.response ? outcomeOf(error.response.status, error.response.data, key) : unknownAfter(error, key));
}
