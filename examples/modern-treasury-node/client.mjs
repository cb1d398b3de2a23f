// A payment order created with the official modern-treasury package, unmodified, under
// retryproof's external-client contract (docs/scenarios.md). The SDK is configured only by
// its baseURL option and keeps its own retries (maxRetries: 2, the default): a connection
// error, a timeout, 408, 409, 429 and every 5xx are re-sent after 0.5 s and 1 s (less up to
// 25 % jitter), or after Retry-After, with the same Idempotency-Key header and body.
//
// The key: the SDK's idempotencyKey request option, set to the operation id (derived once,
// before the first attempt). Without it the SDK still sends a key of its own
// (stainless-node-retry-<uuid>), kept across its own retries but new on every call, so a
// rerun of the operation would be a second payment order.
//
// The operation's payload {"orderId", "paymentId", "amount"} becomes the SDK's own call: an
// ACH credit of that many cents, from a fixed originating account, with the order and the
// payment in its metadata (metadata.orderId is the business identity the shape records).
import ModernTreasury from "modern-treasury";

const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
const client = new ModernTreasury({
  organizationID: process.env.MODERN_TREASURY_ORGANIZATION_ID ?? "org-retryproof",
  apiKey: process.env.MODERN_TREASURY_API_KEY ?? "test-retryproof",
  baseURL: process.env.RETRYPROOF_BASE_URL,
});

const { orderId, paymentId, amount } = operation.payload;
const idempotencyKey = operation.operationId;
const metadata = Object.fromEntries(Object.entries({ orderId, paymentId })
  .filter(([, value]) => value !== undefined).map(([name, value]) => [name, String(value)]));

const report = (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
const log = (message) => process.stderr.write(`[modern-treasury-node] ${message}\n`);

try {
  const order = await client.paymentOrders.create({
    type: "ach",
    direction: "credit",
    amount: amount ?? 0,
    currency: "USD",
    originating_account_id: "0f8e3719-3dfd-4613-9bbf-c0333781b59f",
    metadata,
  }, { idempotencyKey });
  if (order.id) {
    report({ outcome: "succeeded", jobId: order.id });
  } else {
    log(`no id in the answer: ${JSON.stringify(order).slice(0, 200)}`);
    report({ outcome: "unknown", idempotencyKey, reason: "2xx without an id" });
  }
} catch (error) {
  if (!(error instanceof ModernTreasury.APIError)) {
    // Anything else (a body cut short: the SDK rejects with the stream's error) came after
    // the request was sent: the payment order may exist.
    log(`${error.name}: ${error.message}`);
    report({ outcome: "unknown", idempotencyKey, reason: `${error.name}: ${error.message}` });
  } else {
    // status is undefined when no answer arrived: the payment order may exist. A 4xx other
    // than 408, 409 and 429 is definitive; a 5xx the SDK gave up on may have committed.
    const status = error.status;
    const definitive = status >= 400 && status < 500 && ![408, 409, 429].includes(status);
    const code = error.error?.errors?.code;
    log(`${status ?? "no answer"} ${error.constructor.name}: ${error.message}`);
    report(definitive
      ? { outcome: "failed", reason: `${status} ${code ?? "error"}` }
      : { outcome: "unknown", idempotencyKey, reason: `${status ?? "no answer"} ${error.constructor.name}` });
  }
}
