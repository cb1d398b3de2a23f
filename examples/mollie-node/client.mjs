// A payment created with the official @mollie/api-client package, unmodified, under
// retryproof's external-client contract (docs/scenarios.md), over HTTPS. The SDK is
// configured only by its apiEndpoint option (the provider, with Mollie's /v2/) and keeps its
// own retries: a 5xx is re-sent, with the same Idempotency-Key header and body, after 2 s
// (or the response's Retry-After), three attempts in all. A 429, any other 4xx and a lost
// connection are not retried, and there is no timeout.
//
// The key: the SDK's idempotencyKey parameter, set to the operation id (derived once, before
// the first attempt). Without it the SDK still sends a key of its own (18 random bytes in
// base64), kept across its own retries but new on every call, so a rerun of the operation
// would be a second payment.
//
// The operation's payload {"orderId", "paymentId", "amount"} becomes the SDK's own call, as
// a shop's code would write it: the amount, in euros, becomes Mollie's {currency, value} with
// a string of two decimals (120 is "120.00"), the order goes in the description, the
// redirect URL and the metadata (metadata.orderId is the business identity the shape
// records).
//
// Trusting the run's CA. The SDK hands Node's https an Agent of its own with `ca` set to a
// copy of Mozilla's root certificates bundled in the package (from 2021); an explicit `ca`
// replaces Node's trusted store, so NODE_EXTRA_CA_CERTS and the system's CAs are never
// consulted, and no option of the SDK changes it. The only way left to trust the provider's
// CA is below: before the client is made, https.Agent is wrapped so that the CA file the run
// names (RETRYPROOF_CA_FILE) is added to whatever `ca` the SDK passes. The SDK's code is
// untouched and verification stays on: nothing but the bundled roots and this one CA is
// trusted. (A finding of its own: examples/libraries/FINDINGS.md, Mollie.)
import fs from "node:fs";
import https from "node:https";
import { createMollieClient, MollieApiError } from "@mollie/api-client";

const caFile = process.env.RETRYPROOF_CA_FILE;
if (caFile) {
  const runCa = fs.readFileSync(caFile, "utf8");
  const NodeAgent = https.Agent;
  https.Agent = class extends NodeAgent {
    constructor(options = {}) {
      super(options.ca === undefined ? options : { ...options, ca: [].concat(options.ca, runCa) });
    }
  };
}

const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
const client = createMollieClient({
  apiKey: process.env.MOLLIE_API_KEY ?? "test_retryproofretryproofretryproof",
  apiEndpoint: `${process.env.RETRYPROOF_BASE_URL}/v2/`,
});

const { orderId, paymentId, amount } = operation.payload;
const idempotencyKey = operation.operationId;
const metadata = Object.fromEntries(Object.entries({ orderId, paymentId })
  .filter(([, value]) => value !== undefined).map(([name, value]) => [name, String(value)]));

const report = (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
const log = (message) => process.stderr.write(`[mollie-node] ${message}\n`);

try {
  const payment = await client.payments.create({
    amount: { currency: "EUR", value: Number(amount ?? 0).toFixed(2) },
    description: `Order ${orderId}`,
    redirectUrl: `https://shop.example/orders/${encodeURIComponent(orderId ?? "")}`,
    metadata,
    idempotencyKey,
  });
  if (payment.id) {
    report({ outcome: "succeeded", jobId: payment.id });
  } else {
    log(`no id in the answer: ${JSON.stringify(payment).slice(0, 200)}`);
    report({ outcome: "unknown", idempotencyKey, reason: "2xx without an id" });
  }
} catch (error) {
  if (!(error instanceof MollieApiError)) {
    // Anything else came after the request was sent: a body cut short (node-fetch's
    // FetchError), or a 2xx the SDK could not read as a resource. The payment may exist.
    log(`${error.name}: ${error.message}`);
    report({ outcome: "unknown", idempotencyKey, reason: `${error.name}: ${error.message}` });
  } else {
    // statusCode is read from the error body's "status" field; it is undefined when no
    // answer arrived (a dropped or reset connection: the SDK wraps node-fetch's error) or
    // the body was not Mollie's. The payment may then exist. A 4xx other than 408, 409 and
    // 429 is definitive: Mollie did nothing. A 5xx the SDK gave up on may have committed.
    const status = error.statusCode;
    const definitive = status >= 400 && status < 500 && ![408, 409, 429].includes(status);
    log(`${status ?? "no answer"} ${error.title ?? ""}: ${error.message}`);
    report(definitive
      ? { outcome: "failed", reason: `${status} ${error.title ?? "error"}` }
      : { outcome: "unknown", idempotencyKey, reason: `${status ?? "no answer"} ${error.title ?? error.message}` });
  }
}
