/**
 * Reading a run's `calls.jsonl` (call-records.ts writes it): every line is
 * validated against the call record schema and what does not fit is
 * skipped, so one bad line never hides the rest. The validator is compiled
 * at build time (kernel/compiled-schemas/call-record.ts), so `wfcli report`
 * and the viewer load no ajv compiler. The engine only appends, so the
 * readers' validator is not in the writer's module.
 */
import { validate as compiledCallRecord } from '../compiled-schemas/call-record.js';
import type { PrecompiledValidator } from '../precompiled.js';
import type { CallRecord } from './call-records.js';
import { CALLS_FILE, readRunLog } from './run-log.js';

const validate = compiledCallRecord as unknown as PrecompiledValidator<CallRecord>;

export interface CallRecords {
  readonly records: readonly CallRecord[];
  /** 1-based line numbers that are not version-1 records (a torn last line, a newer writer). */
  readonly skipped: readonly number[];
  /** Why calls.jsonl could not be read at all (a link, a FIFO, too large). */
  readonly problem?: string;
}

/** The run's call records in write order; a missing file is none. */
export function readCallRecords(runDir: string): CallRecords {
  const { lines, skipped, problem } = readRunLog<CallRecord>(runDir, CALLS_FILE, validate);
  return { records: lines, skipped, ...(problem === undefined ? {} : { problem }) };
}
