/**
 * The one definition of a run's wall and active time and of its waits
 * (lib/run-time.ts), on events.jsonl marks as the kernel writes them: a run
 * that paused twice and waited at a checkpoint, a run still running, a run
 * stopped while it waited, a run stored before marks were kept, and marks
 * that are malformed (events.jsonl is hostile ground).
 */
import { describe, expect, it } from 'vitest';
import { durationText, runTime, runTimeText, stateMarks, waitLabel, waitSpans } from '../../lib/run-time.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();
const state = (seconds: number, from: string, to: string, activeS: number) => ({ type: 'state', at: at(seconds), from, to, activeMs: activeS * 1000 });
const checkpoint = (seconds: number, name: string, value: string) => ({ type: 'checkpoint', at: at(seconds), name, state: value });

/** Runs 10 s, waits 20 s at "ship", runs 5 s, is paused 30 s, runs 5 s, is paused 15 s, runs 5 s and completes at 90 s with 25 s active. */
const TWICE_PAUSED = [
  state(0, 'queued', 'running', 0),
  { type: 'log', at: at(1), message: 'hello' },
  checkpoint(10, 'ship', 'awaiting'),
  state(10, 'running', 'awaiting_input', 10),
  checkpoint(30, 'ship', 'approved'),
  state(30, 'awaiting_input', 'running', 10),
  state(34, 'running', 'pausing', 14),
  state(35, 'pausing', 'paused', 15),
  state(65, 'paused', 'running', 15),
  state(70, 'running', 'pausing', 20),
  state(70, 'pausing', 'paused', 20),
  state(85, 'paused', 'running', 20),
  state(90, 'running', 'completed', 25),
];

describe('wall and active time', () => {
  it('a finished run: wall from creation to its end, active as the kernel stamped it', () => {
    const run = { createdAt: at(0), terminalAt: at(90), state: 'completed', executing: false, activeMs: 25_000 };
    const time = runTime(run, T0 + 500_000, stateMarks(TWICE_PAUSED).at(-1));
    expect(time).toEqual({ wallMs: 90_000, activeMs: 25_000 });
    expect(runTimeText(time)).toBe('1 m 30 s wall · 25.0 s active');
  });

  it('a run still running: its active clock runs on from the last mark, its wall time to now', () => {
    const marks = stateMarks(TWICE_PAUSED.slice(0, 9));
    const run = { createdAt: at(0), state: 'running', executing: true, activeMs: 15_000 };
    expect(runTime(run, T0 + 75_000, marks.at(-1))).toEqual({ wallMs: 75_000, activeMs: 25_000 });
    // Waiting at a checkpoint or paused, the clock stands still.
    const waiting = stateMarks(TWICE_PAUSED.slice(0, 4)).at(-1);
    expect(runTime({ createdAt: at(0), state: 'awaiting_input', executing: true, activeMs: 0 }, T0 + 25_000, waiting)).toEqual({ wallMs: 25_000, activeMs: 10_000 });
    const paused = stateMarks(TWICE_PAUSED.slice(0, 8)).at(-1);
    expect(runTime({ createdAt: at(0), state: 'paused', executing: false, activeMs: 15_000 }, T0 + 50_000, paused)).toEqual({ wallMs: 50_000, activeMs: 15_000 });
  });

  it('a run whose host died keeps its last known active time and never counts the dead time', () => {
    const last = stateMarks(TWICE_PAUSED.slice(0, 6)).at(-1);
    expect(runTime({ createdAt: at(0), state: 'running', executing: false, activeMs: 0 }, T0 + 600_000, last)).toEqual({ wallMs: 600_000, activeMs: 10_000 });
  });

  it('a run stored before active time was kept shows its wall time alone', () => {
    const time = runTime({ createdAt: at(0), terminalAt: at(3.4), state: 'completed', executing: false }, T0);
    expect(time).toEqual({ wallMs: 3400 });
    expect(runTimeText(time)).toBe('3.4 s wall');
  });

  it('active time never exceeds wall time, and bad dates read as zero', () => {
    expect(runTime({ createdAt: at(0), terminalAt: at(2), state: 'completed', executing: false, activeMs: 2500 }, T0)).toEqual({ wallMs: 2000, activeMs: 2000 });
    expect(runTime({ createdAt: 'yesterday', state: 'running', executing: false }, T0)).toEqual({ wallMs: 0 });
  });

  it('formats durations in one way everywhere', () => {
    expect([850, 12_340, 245_000, 7_260_000].map(durationText)).toEqual(['850 ms', '12.3 s', '4 m 05 s', '2 h 01 m']);
  });
});

describe('wait spans', () => {
  it('a run that waited at a checkpoint and paused twice has three waits, each closed', () => {
    expect(waitSpans(TWICE_PAUSED)).toEqual([
      { kind: 'checkpoint', name: 'ship', from: at(10), to: at(30) },
      { kind: 'paused', from: at(35), to: at(65) },
      { kind: 'paused', from: at(70), to: at(85) },
    ]);
  });

  it('a wait still going is open; the run ending closes every wait', () => {
    const waiting = [state(0, 'queued', 'running', 0), checkpoint(5, 'ship', 'awaiting'), state(5, 'running', 'awaiting_input', 5)];
    expect(waitSpans(waiting)).toEqual([{ kind: 'checkpoint', name: 'ship', from: at(5) }]);
    expect(waitSpans([...waiting, state(9, 'awaiting_input', 'stopped', 5)])).toEqual([{ kind: 'checkpoint', name: 'ship', from: at(5), to: at(9) }]);
  });

  it('a checkpoint wait spans a pause and a restart; the offline time is a wait of its own', () => {
    const entries = [
      state(0, 'queued', 'running', 0),
      checkpoint(5, 'ship', 'awaiting'),
      state(5, 'running', 'awaiting_input', 5),
      state(6, 'awaiting_input', 'interrupted', 5),
      state(20, 'interrupted', 'running', 5),
      // Asked again after the restart: the same wait.
      checkpoint(20, 'ship', 'awaiting'),
      state(20, 'running', 'awaiting_input', 5),
      checkpoint(40, 'ship', 'rejected'),
      state(40, 'awaiting_input', 'running', 5),
      state(41, 'running', 'budget_exhausted', 6),
      state(50, 'budget_exhausted', 'running', 6),
    ];
    const spans = waitSpans(entries);
    expect(spans).toEqual([
      { kind: 'checkpoint', name: 'ship', from: at(5), to: at(40) },
      { kind: 'interrupted', from: at(6), to: at(20) },
      { kind: 'budget_exhausted', from: at(41), to: at(50) },
    ]);
    expect(spans.map(waitLabel)).toEqual(['checkpoint "ship"', 'offline (interrupted)', 'budget exhausted']);
  });

  it('leaves out malformed marks', () => {
    const hostile = [
      { type: 'state', at: 'not a time', from: 'running', to: 'paused', activeMs: 1 },
      { type: 'state', at: at(1), from: 'running', to: 'paused', activeMs: -5 },
      { type: 'state', at: at(2), from: 'running', to: 7, activeMs: 5 },
      { type: 'checkpoint', at: at(3), name: { x: 1 }, state: 'awaiting' },
      { type: 'checkpoint', at: at(4), name: 'never-asked', state: 'approved' },
    ];
    expect(stateMarks(hostile)).toEqual([]);
    // The negative-time mark is no state mark, but it still says the run was paused.
    expect(waitSpans(hostile)).toEqual([{ kind: 'paused', from: at(1) }]);
  });
});
