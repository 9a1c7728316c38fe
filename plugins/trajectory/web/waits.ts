/**
 * The waits on the attempt timeline (lib/run-time.ts): each checkpoint wait,
 * pause, offline stretch and budget stop is a labelled bar in a lane of its
 * own above the agents, and a faint band down the agents' rows, so a gap in
 * the bars reads as a wait and not as slowness. Overlapping waits (a pause
 * while a checkpoint waits) take separate lanes.
 */
import { durationText, waitLabel, type WaitSpan } from '../../../lib/run-time.js';
import { svg } from './dom.js';

export interface WaitGeometry {
  /** Time (ms since the epoch) → x. */
  readonly x: (time: number) => number;
  /** Where an open wait ends on the chart (now, or the run's end). */
  readonly end: number;
  readonly row: number;
  /** Height of the agents' rows below the lanes. */
  readonly rowsHeight: number;
}

interface Placed {
  readonly span: WaitSpan;
  readonly from: number;
  readonly to: number;
  readonly lane: number;
}

/** Lanes so that no two waits of a lane overlap; the first lane that is free when a wait begins. */
export function waitLanes(spans: readonly WaitSpan[], end: number): { placed: Placed[]; lanes: number } {
  const ends: number[] = [];
  const placed = spans.map((span) => {
    const from = Date.parse(span.from);
    const to = span.to === undefined ? end : Math.max(from, Date.parse(span.to));
    let lane = ends.findIndex((busyUntil) => busyUntil <= from);
    if (lane < 0) lane = ends.push(to) - 1;
    else ends[lane] = to;
    return { span, from, to, lane };
  });
  return { placed, lanes: ends.length };
}

/**
 * The lanes' bars (with their label) and the bands down the agents' rows,
 * drawn first so the attempt bars stay on top; the caller shifts the agents'
 * rows down by `lanes × row`.
 */
export function waitShapes(spans: readonly WaitSpan[], geometry: WaitGeometry): { bands: SVGElement[]; bars: SVGElement[]; lanes: number } {
  const { placed, lanes } = waitLanes(spans, geometry.end);
  const { x, row } = geometry;
  const top = lanes * row;
  const bands: SVGElement[] = [];
  const bars: SVGElement[] = lanes === 0 ? [] : [svg('text', { x: 0, y: 16, class: 'wait-title' }, ['waits'])];
  for (const { span, from, to, lane } of placed) {
    const left = x(from);
    const width = Math.max(2, x(to) - left);
    const label = waitLabel(span);
    const title = `${label} · waited ${durationText(to - from)}${span.to === undefined ? ' so far' : ''}`;
    const data = { 'data-wait': span.kind, ...(span.name === undefined ? {} : { 'data-checkpoint': span.name }), 'data-open': span.to === undefined ? 'true' : 'false' };
    bands.push(svg('rect', { class: `wait-band wait-${span.kind}`, x: left.toFixed(1), y: top, width: width.toFixed(1), height: geometry.rowsHeight }));
    bars.push(
      svg('g', { class: 'wait', ...data }, [
        svg('rect', { class: `wait-bar wait-${span.kind}`, x: left.toFixed(1), y: lane * row + 4, width: width.toFixed(1), height: row - 8, rx: 3 }),
        svg('text', { class: 'wait-label', x: (left + 4).toFixed(1), y: lane * row + 16 }, [`${label} · ${durationText(to - from)}`]),
        svg('title', {}, [title]),
      ]),
    );
  }
  return { bands, bars, lanes };
}
