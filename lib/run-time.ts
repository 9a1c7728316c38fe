/**
 * A run's two durations and its waits, defined once for every place that
 * shows how long a run took (the viewer's header and the report, background
 * receipts, `wfcli status`); docs/runs.md "Wall and active time" says the
 * same in words.
 *
 * - Wall time: from the run's creation to its terminal state; an unfinished
 *   run's wall time runs on to now.
 * - Active time (spec 1 "Budgets" rule 5): what the run executed, workflow
 *   JavaScript, agents and tools, without pauses, checkpoint waits and
 *   offline time. The kernel's active clock measures it; snapshot.json keeps
 *   it as of the last segment end, and every `state` mark of events.jsonl
 *   carries it as of that transition, so a live run's active time is its
 *   last mark's plus the time since, while the run is running.
 * - Waits: the spans between a `checkpoint` mark `awaiting` and its decision,
 *   and between a run entering `paused`, `interrupted` or `budget_exhausted`
 *   and leaving it.
 *
 * Pure: the browser app imports it. Marks come from events.jsonl, which is
 * hostile ground, so each is checked before use.
 */

/** What the durations need of a run (kernel StatusSummary, the trajectory model's run). */
export interface TimedRun {
  readonly createdAt: string;
  readonly terminalAt?: string;
  readonly state: string;
  readonly executing: boolean;
  /** Active time as of the last segment end (snapshot.json); absent in runs stored before it was kept. */
  readonly activeMs?: number;
}

/** A `state` line of events.jsonl: the run moved `from` → `to` at `at`, with `activeMs` of active time by then. */
export interface StateMark {
  readonly at: string;
  readonly from: string;
  readonly to: string;
  readonly activeMs: number;
}

export interface RunTime {
  readonly wallMs: number;
  /** Undefined for a run stored before active time was kept. */
  readonly activeMs?: number;
}

export type WaitKind = 'checkpoint' | 'paused' | 'interrupted' | 'budget_exhausted';

/** One wait; `to` is absent while it lasts. `name` is the checkpoint's. */
export interface WaitSpan {
  readonly kind: WaitKind;
  readonly name?: string;
  readonly from: string;
  readonly to?: string;
}

/** States in which the active clock runs (a `pausing` run still executes until its safe point). */
const COUNTING: ReadonlySet<string> = new Set(['running', 'pausing']);
const WAIT_STATES: ReadonlySet<string> = new Set(['paused', 'interrupted', 'budget_exhausted']);
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'stopped']);
const DECIDED: ReadonlySet<string> = new Set(['approved', 'rejected']);

type Entry = { readonly type: string; readonly at: string; readonly [field: string]: unknown };

const validTime = (at: unknown): at is string => typeof at === 'string' && !Number.isNaN(Date.parse(at));

/** The `state` marks among events.jsonl entries, in write order; a malformed one is left out. */
export function stateMarks(entries: readonly Entry[]): StateMark[] {
  return entries.flatMap((entry) => {
    const { from, to, activeMs } = entry;
    if (entry.type !== 'state' || !validTime(entry.at) || typeof from !== 'string' || typeof to !== 'string') return [];
    if (typeof activeMs !== 'number' || !Number.isFinite(activeMs) || activeMs < 0) return [];
    return [{ at: entry.at, from, to, activeMs }];
  });
}

export function runTime(run: TimedRun, now: number, last?: StateMark): RunTime {
  const created = Date.parse(run.createdAt);
  const end = run.terminalAt === undefined ? now : Date.parse(run.terminalAt);
  const wallMs = Number.isNaN(created) || Number.isNaN(end) ? 0 : Math.max(0, end - created);
  let activeMs = run.activeMs;
  if (last !== undefined) {
    // While the run executes in the state of its last mark, the clock has run on since that mark.
    const since = run.executing && !TERMINAL.has(run.state) && last.to === run.state && COUNTING.has(last.to) ? Math.max(0, now - Date.parse(last.at)) : 0;
    activeMs = Math.max(activeMs ?? 0, last.activeMs + since);
  }
  return activeMs === undefined ? { wallMs } : { wallMs, activeMs: Math.min(Math.round(activeMs), wallMs) };
}

/** The run's waits from its events.jsonl entries, in the order they began. */
export function waitSpans(entries: readonly Entry[]): WaitSpan[] {
  const spans: { kind: WaitKind; name?: string; from: string; to?: string }[] = [];
  const open = new Map<string, (typeof spans)[number]>();
  const close = (key: string, at: string): void => {
    const span = open.get(key);
    if (span === undefined) return;
    span.to = at;
    open.delete(key);
  };
  for (const entry of entries) {
    if (!validTime(entry.at)) continue;
    if (entry.type === 'checkpoint' && typeof entry['name'] === 'string' && typeof entry['state'] === 'string') {
      const key = `checkpoint\u0000${entry['name']}`;
      // A decision asked again after a restart is the same wait, still open.
      if (entry['state'] === 'awaiting' && !open.has(key)) {
        const span = { kind: 'checkpoint' as const, name: entry['name'], from: entry.at };
        spans.push(span);
        open.set(key, span);
      } else if (DECIDED.has(entry['state'])) close(key, entry.at);
    } else if (entry.type === 'state' && typeof entry['to'] === 'string') {
      const to = entry['to'];
      for (const key of [...open.keys()]) {
        // Leaving a waiting state ends its wait; the run's end ends every wait.
        if ((!key.startsWith('checkpoint\u0000') && key !== to) || TERMINAL.has(to)) close(key, entry.at);
      }
      if (WAIT_STATES.has(to) && !open.has(to)) {
        const span = { kind: to as WaitKind, from: entry.at };
        spans.push(span);
        open.set(to, span);
      }
    }
  }
  return spans;
}

/** `850 ms`, `12.3 s`, `4 m 05 s`, `2 h 01 m`. */
export function durationText(ms: number): string {
  const value = Math.max(0, ms);
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  const seconds = Math.round(value / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} m`;
}

/** `1 m 50 s wall · 37.2 s active`; only the wall time for a run stored before active time was kept. */
export function runTimeText(time: RunTime): string {
  const wall = `${durationText(time.wallMs)} wall`;
  return time.activeMs === undefined ? wall : `${wall} · ${durationText(time.activeMs)} active`;
}

/** What a wait span is called on the timeline: `checkpoint "ship"`, `paused`, `offline (interrupted)`, `budget exhausted`. */
export function waitLabel(span: WaitSpan): string {
  if (span.kind === 'checkpoint') return `checkpoint "${span.name ?? ''}"`;
  if (span.kind === 'interrupted') return 'offline (interrupted)';
  return span.kind === 'budget_exhausted' ? 'budget exhausted' : 'paused';
}
