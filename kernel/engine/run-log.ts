/**
 * Best-effort run logs beside the journal: `events.jsonl` (log messages,
 * phases, warnings; shown by inspectors and the trajectory viewer) and
 * `calls.jsonl` (call metadata). Neither is read for replay, so a failed write
 * is dropped rather than failing the run. Both are written and read only as
 * regular files of a real run directory (store safe-fs), and read bounded.
 */
import { dirname, join } from 'node:path';
import { isWorkflowError, messageOf } from '../errors.js';
import type { JsonValue } from '../json.js';
import { READ_LIMITS, appendRegular, checkDirectories, readRegularIfExists } from '../store/safe-fs.js';
import { CALLS_FILE, EVENTS_FILE } from './run-entries.js';

export { CALLS_FILE, EVENTS_FILE };

/** Spec 1 "Limits": logs 4 KB, shell inputs and errors 16 KB prefixes. */
export const LOG_LIMIT_BYTES = 4 * 1024;
export const RECORDED_PREFIX_BYTES = 16 * 1024;

export function prefix(text: string, bytes: number): string {
  const buffer = Buffer.from(text);
  if (buffer.byteLength <= bytes) return text;
  // Cut on a character boundary: drop a trailing partial UTF-8 sequence.
  return buffer.subarray(0, bytes).toString('utf8').replace(/\uFFFD$/, '');
}

function append(runDir: string, file: string, entry: Record<string, JsonValue>): void {
  try {
    // The run directory and its `runs/` folder are real: a log line never lands through a planted link.
    checkDirectories(dirname(runDir), runDir);
    appendRegular(join(runDir, file), `${JSON.stringify(entry)}\n`, 0o600);
  } catch {
    // Best-effort by contract (spec 1 "Script language": call metadata writes are best-effort).
  }
}

export function appendRunEvent(runDir: string, entry: Record<string, JsonValue>): void {
  append(runDir, EVENTS_FILE, entry);
}

export function appendCallRecord(runDir: string, entry: Record<string, JsonValue>): void {
  append(runDir, CALLS_FILE, entry);
}

/**
 * The lines of one run log that `accept` (an ajv validator) takes, in write
 * order; a line that does not parse or fit (a torn last line, a newer
 * writer) is skipped and its 1-based number reported. A missing file is
 * empty; one that cannot be read (a link, a FIFO, too large) is named in `problem`.
 */
export function readRunLog<T>(runDir: string, file: string, accept: (value: unknown) => boolean): RunLog<T> {
  let text: string;
  try {
    text = readRegularIfExists(join(runDir, file), READ_LIMITS.log)?.toString('utf8') ?? '';
  } catch (error) {
    return { lines: [], skipped: [], problem: isWorkflowError(error) ? error.message : `${file} cannot be read: ${messageOf(error)}` };
  }
  const lines: T[] = [];
  const skipped: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return void skipped.push(index + 1);
    }
    if (accept(value)) lines.push(value as T);
    else skipped.push(index + 1);
  });
  return { lines, skipped };
}

export interface RunLog<T> {
  readonly lines: readonly T[];
  readonly skipped: readonly number[];
  /** Why the file could not be read at all (it is then treated as empty). */
  readonly problem?: string;
}
