/**
 * `phase(name)` and `log(message)`: progress notes, not effects. A phase is
 * persisted when it changes; a log message is written once per journal key,
 * so a replayed segment does not log it again.
 */
import { WorkflowError } from '../../errors.js';
import type { LogObservation } from '../../hooks.js';
import type { JsonValue } from '../../json.js';
import type { Journal } from '../../store/index.js';
import { JOURNAL_VERSION, type JournalRecord } from '../journal-record.js';
import type { OccurrenceCounter, Scope } from '../keys.js';
import type { RunRecord } from '../run-record.js';
import { appendRunEvent, LOG_LIMIT_BYTES, prefix } from '../run-log.js';
import type { NoteBudget } from './note-budget.js';
import { asWorkflowError } from '../settle.js';

/**
 * A phase set inside a registered function is named after the call that set
 * it (`reviewLoop#2 › iteration 1`, the call's breadcrumb: its invoke label
 * or `name#n`), so two calls of one function never share a phase and views
 * that group agents by phase keep each call's phases apart.
 */
export function phaseName(name: string, breadcrumb: readonly string[]): string {
  return breadcrumb.length === 0 ? name : `${breadcrumb.join(' › ')} › ${name}`;
}

export function notePhase(record: RunRecord, budget: NoteBudget, scope: Scope, args: readonly JsonValue[], breadcrumb: readonly string[] = []): void {
  const [given] = args;
  if (typeof given !== 'string' || given.trim() === '') throw new WorkflowError('INVALID_METADATA', 'phase needs a non-empty name');
  const name = phaseName(given, breadcrumb);
  if (record.snapshot.phase === name) return;
  budget.admit('phase', args);
  if (!record.setPhase(name)) return;
  appendRunEvent(record.runDir, { at: new Date().toISOString(), type: 'phase', phase: name, path: [...scope] });
}

export interface LogDeps {
  readonly record: RunRecord;
  readonly journal: Journal;
  readonly counter: OccurrenceCounter;
  readonly replay: ReadonlyMap<string, JournalRecord>;
  readonly budget: NoteBudget;
  /** Told of each newly persisted message (the `notes.logged` hook); never of a replayed one. */
  readonly logged: (note: { readonly message: string; readonly path: readonly string[]; readonly at: string }) => void;
}

export function noteLog(deps: LogDeps, site: string, scope: Scope, args: readonly JsonValue[]): void {
  const [message] = args;
  if (typeof message !== 'string') throw new WorkflowError('INVALID_METADATA', 'log needs a message string');
  const claim = deps.counter.claim(scope, site, 'log');
  claim.release();
  if (deps.replay.has(claim.key)) return;
  deps.budget.admit('log', args);
  const at = new Date().toISOString();
  const note = { message: prefix(message, LOG_LIMIT_BYTES), path: [...scope] };
  appendRunEvent(deps.record.runDir, { at, type: 'log', ...note });
  deps.journal.append({ v: JOURNAL_VERSION, key: claim.key, at, kind: 'log' });
  deps.logged({ ...note, at });
}

/** Calls `notes.logged`: the message is already persisted, so a tap that throws is reported and the script goes on. */
export function observeLog(hook: { call(entry: LogObservation): void }, entry: LogObservation, warn: ((error: WorkflowError) => void) | undefined): void {
  try {
    hook.call(entry);
  } catch (error) {
    warn?.(asWorkflowError(error));
  }
}
