/**
 * The lanes of the viewer's wait bars (plugins/trajectory/web/waits.ts): a
 * wait that overlaps another (a pause while a checkpoint waits) takes a lane
 * of its own; one that begins after a lane is free reuses it; a wait still
 * going runs to the chart's end.
 */
import { describe, expect, it } from 'vitest';
import { waitLanes } from '../../../plugins/trajectory/web/waits.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

describe('wait lanes', () => {
  it('puts overlapping waits in separate lanes and reuses a lane once it is free', () => {
    const { placed, lanes } = waitLanes(
      [
        { kind: 'checkpoint', name: 'ship', from: at(5), to: at(40) },
        { kind: 'paused', from: at(10), to: at(20) },
        { kind: 'paused', from: at(25), to: at(30) },
        { kind: 'budget_exhausted', from: at(41), to: at(50) },
      ],
      T0 + 60_000,
    );
    expect(lanes).toBe(2);
    expect(placed.map((entry) => [entry.span.kind, entry.lane])).toEqual([['checkpoint', 0], ['paused', 1], ['paused', 1], ['budget_exhausted', 0]]);
  });

  it('runs a wait still going to the end of the chart; no waits, no lanes', () => {
    const { placed } = waitLanes([{ kind: 'checkpoint', name: 'ship', from: at(5) }], T0 + 9000);
    expect(placed[0]).toMatchObject({ from: T0 + 5000, to: T0 + 9000, lane: 0 });
    expect(waitLanes([], T0)).toEqual({ placed: [], lanes: 0 });
  });
});
