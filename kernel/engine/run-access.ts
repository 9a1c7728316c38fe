/**
 * The plugin-facing view of an executing run (contracts/run-access.ts) and
 * the clock behind `activeMs`: time since the segment began, minus the time
 * the run only waited for decisions, plus what earlier segments used.
 */
import { performance } from 'node:perf_hooks';
import type { RunAccess } from '../contracts/run-access.js';
import type { RunRecord } from './run-record.js';

export class ActiveClock {
  readonly #base: number;
  readonly #started = performance.now();
  #waiting = 0;
  #waitingSince = 0;
  #waited = 0;

  constructor(base: number) {
    this.#base = base;
  }

  /** A decision wait began; overlapping waits count once. */
  waitStarted(): void {
    if (this.#waiting++ === 0) this.#waitingSince = performance.now();
  }

  waitEnded(): void {
    if (--this.#waiting === 0) this.#waited += performance.now() - this.#waitingSince;
  }

  ms(): number {
    const now = performance.now();
    const waiting = this.#waiting > 0 ? now - this.#waitingSince : 0;
    return Math.max(0, Math.round(this.#base + (now - this.#started) - this.#waited - waiting));
  }
}

/** The segment's access; its clock also stamps the record's state marks until the segment ends (RunRecord.transition). */
export function createRunAccess(record: RunRecord, activeMs: () => number): RunAccess {
  record.activeNow = activeMs;
  const { runId, sessionId, cwd, workflow } = record.snapshot;
  return Object.freeze({
    run: Object.freeze({ runId, sessionId, cwd }),
    runDir: record.runDir,
    workflowName: workflow.name,
    pluginState: (plugin: string) => record.snapshot.plugins[plugin],
    setPluginState: (plugin: string, value: Parameters<RunAccess['setPluginState']>[1], options?: { readonly durable?: boolean }) =>
      record.setPluginState(plugin, value, options),
    recordEvent: (entry: Parameters<RunAccess['recordEvent']>[0], event?: Parameters<RunAccess['recordEvent']>[1]) => record.recordEvent(entry, event),
    activeMs,
  });
}
