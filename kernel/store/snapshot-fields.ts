/**
 * The only snapshot fields the store reads. The run engine owns and validates
 * the schema; here every field is read defensively from `unknown`.
 */
import { RUN_STATES, TERMINAL_RUN_STATES } from '../states.js';
import type { RunState } from '../states.js';
import { isJsonObject } from './json-text.js';

const STATE_SET: ReadonlySet<string> = new Set(RUN_STATES);

export function snapshotState(snapshot: unknown): RunState | undefined {
  if (!isJsonObject(snapshot)) return undefined;
  const state = snapshot['state'];
  return typeof state === 'string' && STATE_SET.has(state) ? (state as RunState) : undefined;
}

/** True when the snapshot's state is completed, failed or stopped. */
export function isTerminalSnapshot(snapshot: unknown): boolean {
  const state = snapshotState(snapshot);
  return state !== undefined && TERMINAL_RUN_STATES.has(state);
}

/** The runs this snapshot depends on: its `parentRunId` and every `dependsOn` entry. */
export function snapshotReferences(snapshot: unknown): string[] {
  if (!isJsonObject(snapshot)) return [];
  const refs: string[] = [];
  const parent = snapshot['parentRunId'];
  if (typeof parent === 'string') refs.push(parent);
  const dependsOn = snapshot['dependsOn'];
  if (Array.isArray(dependsOn)) {
    for (const item of dependsOn) if (typeof item === 'string') refs.push(item);
  }
  return refs;
}
