// A conversation created with the official openai package, unmodified, under retryproof's
// external-client contract (docs/scenarios.md). The SDK is configured only by its baseURL
// option (the provider, with OpenAI's /v1) and keeps its own retries (maxRetries: 2, the
// default): a connection error, a timeout, 408, 409, 429 and every 5xx are re-sent after
// 0.5 s and 1 s (less up to 25 % jitter), or after Retry-After. The API has no idempotency
// key and the SDK sends none, so every re-sent create is a new object wherever the first
// one was committed: the duplicate its retry would make in production is what the shape
// (examples/openai-node/shape.json, "key": "none") lets the provider show.
//
// The operation's payload becomes the conversation's metadata (OpenAI's metadata values
// are strings), so each conversation carries the order it was made for: metadata.orderId
// is the business identity the shape groups creates by.
import OpenAI from "openai";

const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
const client = new OpenAI({
  apiKey: process.env.OPENAI_API_KEY ?? "sk-test-retryproof",
  baseURL: `${process.env.RETRYPROOF_BASE_URL}/v1`,
});

const metadata = Object.fromEntries(Object.entries(operation.payload).map(
  ([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)]));

const report = (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`);
const log = (message) => process.stderr.write(`[openai-node] ${message}\n`);

try {
  const conversation = await client.conversations.create({ metadata });
  if (conversation.id) {
    report({ outcome: "succeeded", jobId: conversation.id });
  } else {
    log(`no id in the answer: ${JSON.stringify(conversation).slice(0, 200)}`);
    report({ outcome: "unknown", reason: "2xx without an id" });
  }
} catch (error) {
  if (!(error instanceof OpenAI.APIError)) {
    // Anything else (a body cut short: the SDK rejects with the stream's error) came after
    // the request was sent: the conversation may exist.
    log(`${error.name}: ${error.message}`);
    report({ outcome: "unknown", reason: `${error.name}: ${error.message}` });
  } else {
    // status is undefined when no answer arrived (APIConnectionError, a timeout): the
    // conversation may exist. A 4xx other than 408, 409 and 429 is definitive; a 5xx the SDK
    // gave up on may have committed.
    const status = error.status;
    const definitive = status >= 400 && status < 500 && ![408, 409, 429].includes(status);
    log(`${status ?? "no answer"} ${error.constructor.name}: ${error.message}`);
    report(definitive
      ? { outcome: "failed", reason: `${status} ${error.code ?? error.type ?? "error"}` }
      : { outcome: "unknown", reason: `${status ?? "no answer"} ${error.constructor.name}` });
  }
}
