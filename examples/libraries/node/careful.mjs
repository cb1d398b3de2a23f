// What a careful client adds to its retry library: how to read an answer, a record of the
// operation that outlives the process, and a lookup by key. The library still does every
// retry; this file never retries.
//
// The safe pattern (docs/scenarios.md, the table of what a client can conclude): retry with
// the same key and payload only what is proven not committed (503, 429, 409, a connection
// never made); after anything that may have committed (a timeout, a dropped or reset
// connection, a truncated body, a 500) look the key up before sending anything else; when the
// lookup cannot answer, fail closed (unknown).
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

// Nothing was stored by this attempt: the library may retry it after its backoff.
export class PreCommit extends Error {
  constructor(reason, retryAfterMs = 0) { super(reason); this.retryAfterMs = retryAfterMs; }
}
// A 4xx refusal (400, 404, 422): retrying cannot change it.
export class Definitive extends Error {}
// The lookup after an unseen outcome could not answer: nothing can be proven.
export class LookupFailed extends Error {}

const PRE_COMMIT = [409, 429, 503];
const jobIdIn = (body) => (typeof body?.id === "string" ? body.id : undefined);
const bodyOf = async (response) => {
  try { return await response.json(); } catch { return undefined; } // cut short, or not JSON
};
const timeout = () => AbortSignal.timeout(1000);

// A connection never made: nothing was sent (fetch says TypeError, its cause the code).
export const neverSent = (error) =>
  ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH"].includes(error?.cause?.code ?? error?.code);

// An answer as a job id; undefined when it may have committed; or throws what it proves.
export async function classify(response) {
  const body = await bodyOf(response);
  if (response.status >= 200 && response.status < 300 && jobIdIn(body)) return jobIdIn(body);
  if (PRE_COMMIT.includes(response.status)) {
    const told = Number(response.headers.get("retry-after"));
    throw new PreCommit(`HTTP ${response.status}`, Number.isFinite(told) ? told * 1000 : 0);
  }
  if (response.status >= 400 && response.status < 500 && response.status !== 408) {
    throw new Definitive(`${response.status} ${body?.error ?? ""}`.trim());
  }
  return undefined; // a 500, a 408, a 2xx without a whole job
}

// GET by key, once: the job id, or undefined when nothing is stored under the key. Throws
// LookupFailed when the answer is neither (a 503, a timeout, a dropped connection).
export async function lookup(baseUrl, key) {
  let response;
  try {
    response = await fetch(`${baseUrl}/jobs/by-idempotency-key/${encodeURIComponent(key)}`,
                           { signal: timeout() });
  } catch (error) {
    throw new LookupFailed(`lookup: ${error?.cause?.code ?? error?.name}`);
  }
  const body = await bodyOf(response);
  if (response.status === 200 && jobIdIn(body)) return jobIdIn(body);
  if (response.status === 404) return undefined;
  throw new LookupFailed(`lookup: HTTP ${response.status}`);
}

// One small JSON file per operation in RETRYPROOF_STATE_DIR, written before the first request:
// a rerun finds what an earlier run knew (confirmed: send nothing; sent: look the key up
// first, since a killed run cannot know what its last request did).
export class Intent {
  constructor(stateDir, key, payload) {
    this.dir = stateDir;
    this.path = join(stateDir, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
    this.fingerprint = createHash("sha256").update(canonical(payload)).digest("hex");
  }

  // undefined, "sent", { jobId } (confirmed), or "other-payload" (a job found under the key
  // may be that payload's, so a lookup proves nothing).
  earlier() {
    let record;
    try { record = JSON.parse(readFileSync(this.path, "utf8")); } catch { return undefined; }
    if (record.fingerprint !== this.fingerprint) return "other-payload";
    return record.jobId ? { jobId: record.jobId } : "sent";
  }

  save(jobId = null) {
    mkdirSync(this.dir, { recursive: true });
    const temp = `${this.path}.tmp-${process.pid}`;
    const fd = openSync(temp, "w");
    writeSync(fd, JSON.stringify({ fingerprint: this.fingerprint, jobId }));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, this.path); // readers see the old record or the new one
  }
}

const canonical = (value) =>
  value && typeof value === "object" && !Array.isArray(value)
    ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`
    : JSON.stringify(value);
