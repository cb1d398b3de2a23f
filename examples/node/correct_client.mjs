#!/usr/bin/env node
// A retry-safe client for retryproof's provider (Node 18+, built-in fetch, no npm
// dependencies). The same logic as examples/python/correct_client.py:
//
// One logical operation, one idempotency key (the operationId itself), the same payload
// on every attempt, a durable intent written before the first POST, at most three POSTs
// with capped exponential backoff and jitter, a lookup by key after any outcome it could
// not see, and a final lookup when the budget is spent. When nothing can be proven it
// fails closed: {"outcome":"unknown"}, never a guess.
//
// Contract: reads RETRYPROOF_BASE_URL, RETRYPROOF_OPERATION, RETRYPROOF_STATE_DIR,
// RETRYPROOF_SEED and RETRYPROOF_CLIENT (the scenario's attempts, timeout and backoff,
// which it follows); prints exactly one JSON line on stdout; logs go to stderr.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

// The scenario's settings when the harness gives them (RETRYPROOF_CLIENT), else these.
const SETTINGS = JSON.parse(process.env.RETRYPROOF_CLIENT || "{}");
const ATTEMPTS = SETTINGS.attempts ?? 3;          // total POSTs, not retries after the first
const BASE_MS = SETTINGS.baseDelayMs ?? 100;      // first backoff step
const CAP_MS = SETTINGS.maxDelayMs ?? 1000;       // no step is longer than this
const TIMEOUT_MS = SETTINGS.timeoutMs ?? 1000;    // per request, body included
const REJECTED = "rejected: ";  // how a definitive refusal's reason begins

// Timers may fire up to a millisecond early; a backoff is a floor, so wait it out fully.
async function sleepAtLeast(ms) {
  const end = performance.now() + ms;
  for (let left = ms; left > 0; left = end - performance.now()) await sleep(Math.ceil(left));
}

const log = (message) => process.stderr.write(`[node-client ${performance.now().toFixed(0)}ms] ${message}\n`);

// JSON with object keys sorted and no white space: the payload's fingerprint input.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

// A small seeded PRNG (mulberry32), so that RETRYPROOF_SEED replays the jitter.
function seededRandom(seed) {
  let state = Number(BigInt.asUintN(32, BigInt(seed))) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One JSON intent file per operation; every save is atomic and durable.
class Ledger {
  constructor(stateDir, operationId) {
    this.dir = stateDir;
    this.file = path.join(stateDir, `intent-${sha256(operationId).slice(0, 32)}.json`);
  }
  load() {
    try {
      return JSON.parse(fs.readFileSync(this.file, "utf8"));
    } catch (error) {
      if (error.code === "ENOENT") return null;
      throw error;
    }
  }
  save(intent) {
    fs.mkdirSync(this.dir, { recursive: true });
    const temp = `${this.file}.tmp-${process.pid}`;
    const fd = fs.openSync(temp, "w");
    try {
      fs.writeFileSync(fd, JSON.stringify(intent));
      fs.fsyncSync(fd);                 // the bytes are on disk before the name points at them
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, this.file);     // atomic: readers see the old or the new record
    const dirFd = fs.openSync(this.dir, "r");
    try {
      fs.fsyncSync(dirFd);              // and the rename itself survives a crash
    } finally {
      fs.closeSync(dirFd);
    }
  }
}

// What kind of failure a fetch error is. Only "not-sent" is safe to send again blindly.
function classifyError(error, bodyStage) {
  if (error?.name === "TimeoutError" || error?.name === "AbortError") return "timeout";
  if (bodyStage) return `truncated (${error?.cause?.code ?? error?.message})`;  // status seen, body not
  const code = error?.cause?.code ?? error?.code;
  if (code === "ECONNREFUSED") return "not-sent (ECONNREFUSED)";          // no byte left
  return `closed (${code ?? error?.cause?.message ?? error?.message})`;   // UND_ERR_SOCKET, ECONNRESET, ...
}

// Sends one request and says precisely how it ended: {status, body, headers} or {failure}.
async function send(baseUrl, method, urlPath, { body, headers } = {}) {
  const signal = AbortSignal.timeout(TIMEOUT_MS);  // covers the headers and the body
  let response;
  try {
    response = await fetch(baseUrl + urlPath, { method, body, headers, signal });
  } catch (error) {
    return { failure: classifyError(error, false) };
  }
  try {
    return { status: response.status, body: await response.text(), headers: response.headers };
  } catch (error) {
    return { failure: classifyError(error, true) };
  }
}

// The job id from a response body, or null when the body is not a whole job.
function jobIdIn(body) {
  try {
    const job = JSON.parse(body);
    return job && typeof job === "object" && typeof job.id === "string" ? job.id : null;
  } catch {
    return null;
  }
}

function errorCodeIn(body) {
  try {
    const parsed = JSON.parse(body);
    return parsed && typeof parsed.error === "string" ? parsed.error : "";
  } catch {
    return "";
  }
}

class Client {
  constructor({ baseUrl, operationId, payload, stateDir, seed }) {
    Object.assign(this, { baseUrl, operationId });
    this.body = JSON.stringify(payload);
    this.fingerprint = sha256(canonical(payload));
    this.ledger = new Ledger(stateDir, operationId);
    this.random = seededRandom(seed);
    this.intent = null;
    this.sawInFlight = false;
  }

  save(changes) {
    Object.assign(this.intent, changes);
    this.ledger.save(this.intent);
  }
  succeeded(jobId) {
    this.save({ status: "confirmed", jobId });
    return { outcome: "succeeded", jobId };
  }
  giveUp(outcome, reason) {
    this.save({ status: outcome, reason });
    return outcome === "failed"
      ? { outcome, reason }
      : { outcome, idempotencyKey: this.intent.idempotencyKey, reason };
  }
  // Exponential, capped; half of each step fixed, half random: never immediate.
  backoffMs() {
    const step = Math.min(CAP_MS, BASE_MS * 2 ** Math.max(this.intent.attempts - 1, 0));
    return step / 2 + this.random() * (step / 2);
  }
  budgetLeft() {
    return this.intent.attempts < ATTEMPTS;
  }

  // The state machine: plan -> attempt -> classify -> backoff | reconcile | done.
  async run() {
    const earlier = this.ledger.load();
    // If an earlier run sent this key with another payload, a job found by key may be that
    // payload's: a lookup cannot tell, so it proves nothing (fail closed).
    this.keyUsedForAnotherPayload = earlier !== null &&
      earlier.payloadFingerprint !== this.fingerprint && (earlier.attempts ?? 0) > 0;
    const stale = earlier !== null && (earlier.payloadFingerprint !== this.fingerprint ||
      (earlier.status === "failed" && !String(earlier.reason).startsWith(REJECTED)));
    if (earlier !== null && !stale) {
      this.intent = earlier;
      log(`intent ledger: an earlier run left status ${earlier.status}`);
      if (earlier.status === "confirmed") return { outcome: "succeeded", jobId: earlier.jobId };
      if (earlier.status === "failed") return { outcome: "failed", reason: earlier.reason };
      return this.reconcile(false);  // planned/sent/unknown: look the key up before sending
    }
    // The key is derived once, from business identity, and kept for every attempt.
    this.intent = { operationId: this.operationId, idempotencyKey: this.operationId,
                    payloadFingerprint: this.fingerprint, status: "planned", attempts: 0 };
    this.ledger.save(this.intent);   // durable before the first request
    return this.attempt(0);
  }

  async attempt(waitMs) {
    for (;;) {
      if (waitMs > 0) {
        log(`waiting ${waitMs.toFixed(0)} ms`);
        await sleepAtLeast(waitMs);
      }
      if (!this.budgetLeft()) return this.reconcile(true);  // a 5xx may follow a commit
      this.save({ status: "sent", attempts: this.intent.attempts + 1 });
      const key = this.intent.idempotencyKey;
      const r = await send(this.baseUrl, "POST", "/jobs", {
        // Header values go out one byte per char: spell the key's UTF-8 bytes, so that the
        // header names the same key as the lookup's percent-encoding (encodeURIComponent).
        body: this.body,
        headers: { "Idempotency-Key": Buffer.from(key, "utf8").toString("latin1"), "Content-Type": "application/json" },
      });
      log(`POST /jobs #${this.intent.attempts} key=${key} -> ${r.status ?? r.failure}`);
      if ((r.status === 200 || r.status === 201) && jobIdIn(r.body)) return this.succeeded(jobIdIn(r.body));
      if ([503, 429, 409].includes(r.status) || r.failure?.startsWith("not-sent")) {
        // Proven not committed by this try (409: the first try is still deciding).
        if (r.status === 409) this.sawInFlight = true;
        waitMs = this.backoffMs();
        if (r.status === 429) {
          const seconds = Number(r.headers.get("retry-after") ?? "1");
          const toldMs = Number.isFinite(seconds) ? seconds * 1000 : 1000;
          // Never sooner than told, and up to a quarter later: a fleet told to come back in
          // a second would otherwise come back in the same millisecond.
          waitMs = Math.max(waitMs, toldMs + this.random() * (toldMs / 4));
        }
        continue;
      }
      if (r.status >= 400 && r.status < 500) {
        const code = errorCodeIn(r.body);
        return this.giveUp("failed", `${REJECTED}${r.status}${code ? ` ${code}` : ""}`);
      }
      // Timeout, closed/reset, truncated or unparsable body, 500: it may have committed.
      return this.reconcile(false);
    }
  }

  async reconcile(final) {
    const key = this.intent.idempotencyKey;
    const r = await send(this.baseUrl, "GET", `/jobs/by-idempotency-key/${encodeURIComponent(key)}`);
    log(`GET lookup key=${key} -> ${r.status ?? r.failure}`);
    if (r.status === 200 && jobIdIn(r.body)) {
      if (this.keyUsedForAnotherPayload) {
        return this.giveUp("unknown", `the provider holds ${jobIdIn(r.body)} for this key, ` +
                           "which an earlier run sent with another payload");
      }
      return this.succeeded(jobIdIn(r.body));
    }
    if (r.status === 404) {
      if (!final && this.budgetLeft()) return this.attempt(this.backoffMs());  // same key again
      if (this.sawInFlight) return this.giveUp("unknown", "the key was still in flight when the budget ran out");
      return this.giveUp("failed", `not committed after ${this.intent.attempts} attempts`);
    }
    return this.giveUp("unknown", `lookup failed: ${r.status ?? r.failure}`);  // fail closed
  }
}

async function main() {
  let key = null;
  let result;
  try {
    const operation = JSON.parse(process.env.RETRYPROOF_OPERATION);
    key = operation.operationId;
    const client = new Client({
      baseUrl: process.env.RETRYPROOF_BASE_URL.replace(/\/$/, ""),
      operationId: key,
      payload: operation.payload ?? {},
      stateDir: process.env.RETRYPROOF_STATE_DIR || path.join(process.cwd(), ".intents"),
      seed: process.env.RETRYPROOF_SEED || Math.floor(Math.random() * 2 ** 32),
    });
    result = await client.run();
  } catch (error) {  // never die without an outcome line: an unexpected error is unknown
    process.stderr.write(`${error?.stack ?? error}\n`);
    result = { outcome: "unknown", idempotencyKey: key, reason: "unexpected client error" };
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
