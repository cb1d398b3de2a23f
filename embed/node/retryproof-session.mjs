// A session client in a few lines of JavaScript (docs/sessions.md). retryproof starts your
// program once per service instance and sends it operations on standard input, one JSON line
// each, while earlier ones still run. serve(handler) reads them, runs each concurrently (at
// most `maxInFlight` at once, more wait), and writes each answer, tagged with its
// operation's id, as soon as it is done:
//
//   import { serve } from 'retryproof-sandbox/session';
//   const orders = new OrdersClient(process.env.RETRYPROOF_BASE_URL);  // one for every call
//   await serve(async (operationId, payload) => {
//     const job = await orders.create(payload, { idempotencyKey: operationId });
//     return ['succeeded', job.id];
//   });
//
// The handler returns ['succeeded', jobId], ['failed', reason] or ['unknown', reason]; a
// handler that throws is answered 'unknown' (nobody can prove what happened). A line that
// cannot be read is named on standard error, and answered 'failed' when its id could be read.
import { createInterface } from 'node:readline';

export const OUTCOMES = ['succeeded', 'failed', 'unknown'];

function outcomeLine(answer) {
  if (!Array.isArray(answer) || answer.length !== 2 || !OUTCOMES.includes(answer[0])) {
    throw new Error(`a handler returns [outcome, jobId or reason], not ${JSON.stringify(answer)}`);
  }
  const [outcome, detail] = answer;
  return outcome === 'succeeded' ? { outcome, jobId: String(detail) } : { outcome, reason: String(detail) };
}

// {id, operationId, payload} or {id?, problem}.
export function readOperation(text) {
  let line;
  try {
    line = JSON.parse(text);
  } catch {
    return { problem: 'not JSON' };
  }
  if (line === null || typeof line !== 'object' || Array.isArray(line)) return { problem: 'not a JSON object' };
  const { id, operationId, payload = {} } = line;
  if (typeof id !== 'string' || id === '') return { problem: '"id" must be a non-empty string' };
  if (typeof operationId !== 'string' || operationId === '') {
    return { id, problem: '"operationId" must be a non-empty string' };
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return { id, problem: '"payload" must be a JSON object' };
  }
  return { id, operationId, payload };
}

export async function serve(handler, { maxInFlight = 64, input = process.stdin, output = process.stdout,
                                       errors = process.stderr } = {}) {
  const write = (id, line) => output.write(`${JSON.stringify({ id, ...line })}\n`);
  const note = (text) => errors.write(`session: ${text}\n`);
  const waiting = [];  // operations past maxInFlight, in arrival order
  const running = new Set();
  const seen = new Set();

  const start = ({ id, operationId, payload }) => {
    const done = (async () => {
      let line;
      try {
        line = outcomeLine(await handler(operationId, payload));
      } catch (error) {
        note(`${id}: ${error?.stack ?? error}`);
        line = { outcome: 'unknown', reason: `client error: ${error?.message ?? error}` };
      }
      write(id, line);
    })().finally(() => {
      running.delete(done);
      if (waiting.length > 0) start(waiting.shift());
    });
    running.add(done);
  };

  let number = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    number += 1;
    if (text.trim() === '') continue;
    const operation = readOperation(text);
    if (operation.id !== undefined && seen.has(operation.id)) {
      note(`input line ${number}: the id "${operation.id}" was sent before; ids tag one line each`);
      continue;
    }
    if (operation.id !== undefined) seen.add(operation.id);
    if (operation.problem) {
      note(`input line ${number}: ${operation.problem} (${text.slice(0, 200)})`);
      if (operation.id !== undefined) write(operation.id, { outcome: 'failed', reason: `malformed operation: ${operation.problem}` });
    } else if (running.size < maxInFlight) {
      start(operation);
    } else {
      waiting.push(operation);
    }
  }
  // End of input: what is in flight, and what waits, finishes and is answered.
  while (running.size > 0) await Promise.all([...running]);
}
