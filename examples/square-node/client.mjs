// A card payment created with the official square package, unmodified, under retryproof's
// external-client contract (docs/scenarios.md). The SDK is configured only by its baseUrl
// option and keeps its own retries (maxRetries: 2, the default): 408, 429 and every 5xx are
// re-sent with the same body, so the same idempotency_key, after 1 s and 2 s (±10 %) or
// after Retry-After. It does not retry a dropped or reset connection, and Square has no
// lookup by key: such a payment's outcome is unknown to the caller, and Square's own
// advice is to send the same request with the same key again later.
//
// The operation's payload {"orderId", "paymentId", "amount"} becomes the SDK's own call,
// as a shop's code would write it: payments.create with the operation id as the
// idempotencyKey (derived once, before the first attempt), the amount in cents (USD), the
// order as referenceId and the payment id in the note. The SDK sends its own wire body
// (snake_case, the key inside it); examples/square-node/shape.json describes that wire.
import { SquareClient, SquareError } from "square";

const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
const client = new SquareClient({
  token: process.env.SQUARE_ACCESS_TOKEN ?? "sq_test_retryproof",
  baseUrl: process.env.RETRYPROOF_BASE_URL,
});

const { orderId, paymentId, amount } = operation.payload;
// Square's idempotency key names the logical payment: the operation, never an attempt.
const idempotencyKey = operation.operationId;

const report = (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
const log = (message) => process.stderr.write(`[square-node] ${message}\n`);

try {
  const response = await client.payments.create({
    sourceId: "cnon:card-nonce-ok",  // Square's sandbox test card nonce
    idempotencyKey,
    amountMoney: { amount: BigInt(amount ?? 0), currency: "USD" },
    referenceId: orderId,
    note: paymentId === undefined ? undefined : `payment ${paymentId}`,
  });
  const id = response.payment?.id;
  if (id) {
    report({ outcome: "succeeded", jobId: id });
  } else {
    // A 2xx without {"payment": {"id"}}: something answered, but not with a payment.
    log(`no payment in the answer: ${JSON.stringify(response).slice(0, 200)}`);
    report({ outcome: "unknown", idempotencyKey, reason: "2xx without payment.id" });
  }
} catch (error) {
  if (!(error instanceof SquareError)) {
    // Anything else (a body cut short, say) came after the request was sent: it may exist.
    log(`${error.name}: ${error.message}`);
    report({ outcome: "unknown", idempotencyKey, reason: `${error.name}: ${error.message}` });
  } else {
    // statusCode is undefined when no answer arrived (a dropped or reset connection, a
    // timeout): the payment may exist. A 4xx other than 408, 409 and 429 is definitive:
    // Square did nothing (IDEMPOTENCY_KEY_REUSED, a refused parameter). A 5xx the SDK gave up
    // on may have committed.
    const status = error.statusCode;
    const first = error.errors?.[0] ?? {};
    const definitive = status >= 400 && status < 500 && ![408, 409, 429].includes(status);
    log(`${status ?? "no answer"} ${first.category ?? ""} ${first.code ?? ""}: ${String(error.message).split("\n")[0]}`);
    report(definitive
      ? { outcome: "failed", reason: `${status} ${first.code ?? "error"}` }
      : { outcome: "unknown", idempotencyKey,
          reason: status === undefined ? `no answer: ${error.message}` : `${status} ${first.code ?? "error"}` });
  }
}
