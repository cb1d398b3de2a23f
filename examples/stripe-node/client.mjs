// A payment intent created with the official stripe package, unmodified, under retryproof's
// external-client contract (docs/scenarios.md). The SDK is configured only by where the
// provider is (host, port, protocol) and keeps its own retries (maxNetworkRetries: 2, the
// default for v23): connection errors, 409 and 5xx are retried with the same
// Idempotency-Key, as Stripe's docs describe. Stripe has no lookup by key, so an unknown
// outcome is reconciled by the SDK's replay under the same key, never by a new key.
//
// One addition, from Stripe's rate-limit advice (https://docs.stripe.com/rate-limits): the
// SDK does not retry a 429, so this client waits as long as Retry-After says and tries
// again, with the same key, a bounded number of times.
import Stripe from "stripe";

const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
const provider = new URL(process.env.RETRYPROOF_BASE_URL);
const stripe = new Stripe(process.env.STRIPE_API_KEY ?? "sk_test_retryproof", {
  host: provider.hostname,
  port: Number(provider.port),
  protocol: provider.protocol.replace(":", ""),
});

// The key names the logical operation: derived once, before the first attempt.
const idempotencyKey = operation.operationId;
// The payload is the payment intent's parameters, sent as they are on every attempt.
const params = operation.payload;

const report = (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
const log = (message) => process.stderr.write(`[stripe-node] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const kRateLimitRetries = 3;

async function create() {
  for (let attempt = 0; ; ++attempt) {
    try {
      return await stripe.paymentIntents.create(params, { idempotencyKey });
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeRateLimitError) || attempt === kRateLimitRetries) throw error;
      const seconds = Number(error.headers?.["retry-after"] ?? 1);
      log(`429, waiting ${seconds}s as Retry-After says`);
      await sleep(seconds * 1000);
    }
  }
}

try {
  const intent = await create();
  report({ outcome: "succeeded", jobId: intent.id });
} catch (error) {
  // A 4xx the SDK does not retry is definitive: nothing was done (a changed request under
  // the key, a refused parameter). Anything else may have committed.
  const definitive = error instanceof Stripe.errors.StripeError && error.statusCode >= 400 &&
    error.statusCode < 500 && ![409, 429].includes(error.statusCode);
  log(`${error.type}: ${error.message}`);
  report(definitive
    ? { outcome: "failed", reason: `${error.statusCode} ${error.type} ${error.code ?? ""}`.trim() }
    : { outcome: "unknown", idempotencyKey, reason: `${error.type}: ${error.message}` });
}
