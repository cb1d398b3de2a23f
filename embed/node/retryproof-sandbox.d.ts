// Types of retryproof-sandbox.mjs, for TypeScript users. docs/embedding.md has the story.
import type { ChildProcess } from 'node:child_process';

/** The provider could not be started, or refused a control call (its words). */
export class SandboxError extends Error {}

/** The retryproof executable: `binary`, else $RETRYPROOF_BINARY, else `retryproof` on PATH. */
export function findBinary(binary?: string): string;

/** A fault's name ('commit-then-drop', 'rate-limited:2') or a targeted rule. */
export type Fault = string | { fault: string; match?: Record<string, string> };

/** A verdict judged from traffic alone. */
export interface Verdict {
  id: string;
  status: 'pass' | 'fail' | 'n/a' | 'inconclusive';
  severity?: string;
  explanation?: string;
  /** Why it is inconclusive: what the traffic lacked. */
  reason?: string;
  evidence: number[];
  [field: string]: unknown;
}

/** The JSON report of GET /_test/verdicts: the verdicts judged from traffic alone. */
export class Verdicts {
  constructor(report: any);
  readonly report: any;
  /** No verdict failed. */
  readonly ok: boolean;
  /** The failed verdicts. */
  readonly failures: Verdict[];
  /** The verdicts the traffic could not decide (each with its `reason`). */
  readonly inconclusive: Verdict[];
  /** 'pass', 'fail', 'n/a' or 'inconclusive'; throws for a verdict not judged from traffic. */
  status(id: string): Verdict['status'];
  /** Each verdict, and why for those that did not pass. */
  toString(): string;
}

/** A job the provider holds: its id, key and the payload's business fields. */
export interface Job {
  id: string;
  key: string;
  [field: string]: unknown;
}

export class Sandbox {
  /** The provider's base URL, http://127.0.0.1:PORT. */
  readonly url: string;
  readonly child: ChildProcess;
  /** What the provider logged so far: one line per request, never a payload. */
  log: string;
  /** The faults of the next new operations, in order. Resolves to the plan in force. */
  faults(...faults: Fault[]): Promise<object>;
  /** A whole fault plan, in the body format of POST /_test/faults. */
  plan(plan: object): Promise<object>;
  /** Empties the store, the plan and the journal. */
  reset(seed?: number): Promise<object>;
  /** Moves the provider's clock forward ('25h'). */
  advanceClock(duration: string): Promise<object>;
  /** The jobs the provider holds, in creation order. */
  jobs(): Promise<Job[]>;
  /** The log once every request journaled so far has its line. */
  logged(): Promise<string>;
  /** Every request it saw, in order: the entries of GET /_test/journal. */
  journal(): Promise<Array<Record<string, unknown>>>;
  /** Judges the traffic so far; `policy` in --client-policy's form ('attempts=4'). */
  verdicts(options?: { policy?: string }): Promise<Verdicts>;
  /** Stops the provider (SIGTERM, then SIGKILL after five seconds). Idempotent. */
  stop(): Promise<void>;
}

export interface SandboxOptions {
  /** The retryproof executable (default: $RETRYPROOF_BINARY, else `retryproof` on PATH). */
  binary?: string;
  /** The job ids' seed (default 0). */
  seed?: number;
  /** The payload field that names the business operation (default 'orderId'; '' for none). */
  operationField?: string;
  /** More `retryproof provider` flags: ['--api', 'stripe'], ['--key-ttl', '24h']; not --port,
   *  --seed or --operation-field, which the sandbox passes itself (refused, saying what to do). */
  args?: string[];
  /** How long to wait for the provider to start (default 10000). */
  startTimeoutMs?: number;
}

/** Starts a provider of its own on a free loopback port, once GET /_test/health answers. */
export function startSandbox(options?: SandboxOptions): Promise<Sandbox>;
