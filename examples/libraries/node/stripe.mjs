// The official stripe package, unmodified: pointed at RETRYPROOF_BASE_URL with host, port and
// protocol 'http' (and a dummy test key), its own maxNetworkRetries left on (2), creating a
// payment intent with an idempotencyKey from the operationId, as Stripe's docs show.
// It speaks Stripe's wire (POST /v1/payment_intents, form-encoded), not POST /jobs: against
// today's provider every call is a 404. See FINDINGS.md for what it sends and expects.
import Stripe from "stripe";
import { operation, report } from "./contract.mjs";

const { baseUrl, key, payload } = operation();
const url = new URL(baseUrl);
const stripe = new Stripe(process.env.STRIPE_API_KEY ?? "sk_test_retryproof", {
  host: url.hostname,
  port: Number(url.port || 80),
  protocol: "http",
  maxNetworkRetries: 2,
});

const { amount, ...rest } = payload;
try {
  const intent = await stripe.paymentIntents.create(
    { amount, currency: "usd", metadata: Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)])) },
    { idempotencyKey: key },
  );
  report({ outcome: "succeeded", jobId: intent.id });
} catch (error) {
  // Stripe's own classes: a connection error or a 5xx proves nothing; a 4xx is definitive.
  const definitive = error instanceof Stripe.errors.StripeError && error.statusCode >= 400 &&
    error.statusCode < 500 && ![409, 429].includes(error.statusCode);
  report(definitive
    ? { outcome: "failed", reason: `${error.statusCode} ${error.type} ${error.code ?? ""}`.trim() }
    : { outcome: "unknown", idempotencyKey: key, reason: `${error.type}: ${error.message}` });
}
