/**
 * Reading a run's `events.jsonl` (log messages, phases, warnings, plugin
 * events such as budget entries) for inspectors. Every line is checked with
 * ajv for the two fields every entry has (`type`, `at`); a line that does not
 * parse or fit is skipped and counted, never fatal.
 */
import { validate as compiledRunEvent } from '../compiled-schemas/run-event.js';
import type { PrecompiledValidator } from '../precompiled.js';
import type { JsonValue } from '../json.js';
import { EVENTS_FILE, readRunLog } from './run-log.js';

export interface RunEventLine {
  readonly type: string;
  /** ISO time the entry was written. */
  readonly at: string;
  readonly [field: string]: JsonValue;
}

// Build-time compiled (run-event-schema.ts): ajv's own code for the schema.
const validate = compiledRunEvent as unknown as PrecompiledValidator<RunEventLine>;

/** The run's events in write order; a missing file is none, an unreadable one (a link, a FIFO) is none with a `problem`. */
export function readRunEvents(runDir: string): { readonly entries: readonly RunEventLine[]; readonly skipped: readonly number[]; readonly problem?: string } {
  const { lines, skipped, problem } = readRunLog<RunEventLine>(runDir, EVENTS_FILE, validate);
  return { entries: lines, skipped, ...(problem === undefined ? {} : { problem }) };
}
