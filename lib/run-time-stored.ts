/**
 * The last `state` mark of a stored run's events.jsonl: what makes a live
 * run's active time current (lib/run-time.ts `runTime`). Kept apart from
 * run-time.ts, which stays pure for the browser app.
 */
import { readRunEvents } from '../kernel/engine/run-events.js';
import { stateMarks, type StateMark } from './run-time.js';

export function lastStateMark(runDir: string): StateMark | undefined {
  return stateMarks(readRunEvents(runDir).entries).at(-1);
}
