// The external-client contract (docs/scenarios.md), shared by the library clients here:
// what to send comes from the environment; exactly one outcome line goes to stdout.
// Nothing in this file retries: each client lets its library do that.
export function operation() {
  const op = JSON.parse(process.env.RETRYPROOF_OPERATION);
  return {
    baseUrl: process.env.RETRYPROOF_BASE_URL.replace(/\/$/, ""),
    key: op.operationId, // derived once, from business identity, for every attempt
    payload: op.payload ?? {},
  };
}

// A final HTTP answer, after the library's retries, as an outcome.
export function outcomeOf(status, body, key) {
  if (status >= 200 && status < 300 && typeof body?.id === "string") {
    return { outcome: "succeeded", jobId: body.id };
  }
  if (status >= 400 && status < 500 && ![408, 409, 429].includes(status)) {
    return { outcome: "failed", reason: `${status} ${body?.error ?? ""}`.trim() };
  }
  return { outcome: "unknown", idempotencyKey: key, reason: `HTTP ${status}` };
}

// No answer at all after the retries (timeout, dropped connection...): it may have committed.
export const unknownAfter = (error, key) => ({
  outcome: "unknown",
  idempotencyKey: key,
  reason: `${error?.name ?? "Error"}: ${error?.code ?? error?.cause?.code ?? error?.message}`,
});

export function report(outcome) {
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

export const log = (message) => process.stderr.write(`[${performance.now().toFixed(0)}ms] ${message}\n`);
