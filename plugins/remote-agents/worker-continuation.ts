/**
 * A handle's later turn on a worker: the queued attempt carries the session
 * file of the handle's previous turn, which the worker writes to a file of
 * its own for the Pi transport to resume. The text comes from the queue, so
 * it is hostile input: bounded in bytes and lines, every line a JSON object
 * with a `type`, the first one Pi's session header. Anything else fails the
 * attempt naming the queued attempt as the source.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowError } from '../../kernel/index.js';
import { MAX_TRANSCRIPT_BYTES, type AttemptRequest } from './attempt.js';

const MAX_LINES = 200_000;

function refuse(request: AttemptRequest, why: string): never {
  throw new WorkflowError('AGENT_FAILED', `the queued attempt ${request.workflowId} carries an unusable session file for its turn ${request.continuation?.turn ?? 1}: ${why}; the host sends the session file of the handle's previous turn as it holds it`);
}

function checkSessionText(request: AttemptRequest, text: string): void {
  if (Buffer.byteLength(text, 'utf8') > MAX_TRANSCRIPT_BYTES) refuse(request, `it is larger than ${MAX_TRANSCRIPT_BYTES} bytes`);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) refuse(request, 'it is empty');
  if (lines.length > MAX_LINES) refuse(request, `it has more than ${MAX_LINES} lines`);
  lines.forEach((line, index) => {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      refuse(request, `line ${index + 1} is not JSON`);
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || typeof (entry as { type?: unknown }).type !== 'string') refuse(request, `line ${index + 1} is not a session entry (an object with a type)`);
    if (index === 0 && ((entry as { type: string }).type !== 'session' || typeof (entry as { id?: unknown }).id !== 'string')) refuse(request, 'its first line is not a Pi session header');
  });
}

export interface ContinuedSession {
  readonly file: string;
  remove(): void;
}

/** Writes the previous turn's session file under `root` (0600) after checking it; undefined for a first turn. */
export function continuedSession(request: AttemptRequest, root: string): ContinuedSession | undefined {
  const continuation = request.continuation;
  if (continuation === undefined) return undefined;
  checkSessionText(request, continuation.transcript);
  const dir = path.join(root, 'sessions');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${request.workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
  // A recovered execution finds its predecessor's file, which Pi appended to: it starts again from the host's text.
  writeFileSync(file, continuation.transcript, { mode: 0o600 });
  return { file, remove: () => rmSync(file, { force: true }) };
}
