// Types of retryproof-session.mjs, for TypeScript users. docs/sessions.md has the story.
import type { Readable, Writable } from 'node:stream';

export type Outcome = 'succeeded' | 'failed' | 'unknown';
export const OUTCOMES: readonly Outcome[];

/** ['succeeded', jobId], ['failed', reason] or ['unknown', reason]. */
export type Answer = ['succeeded', string] | ['failed', string] | ['unknown', string];

/** One operation: its business identity (derive the idempotency key from it) and its payload. */
export type Handler = (operationId: string, payload: Record<string, unknown>) => Answer | Promise<Answer>;

export interface ServeOptions {
  /** Operations running at once; more wait their turn. 64 unless told. */
  maxInFlight?: number;
  input?: Readable;
  output?: Writable;
  errors?: Writable;
}

/** A line of standard input read: the operation, or why it cannot be (with its id when read). */
export function readOperation(text: string):
  | { id: string; operationId: string; payload: Record<string, unknown>; problem?: undefined }
  | { id?: string; problem: string };

/** Serves operations until standard input ends; resolves once every one has been answered. */
export function serve(handler: Handler, options?: ServeOptions): Promise<void>;
