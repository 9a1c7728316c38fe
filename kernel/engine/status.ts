/**
 * The status summary (spec 1 "Other records"): identity, state, failure,
 * phase, delivery mode, and per-agent shims with IDs, labels, paths, state,
 * last activity and accounting. Never transcripts or session payloads.
 */
import type { JsonValue } from '../json.js';
import { readResultText } from '../store/run-files.js';
import type { RunOutcome } from './engine-types.js';
import { TERMINAL_RUN_STATES } from '../states.js';
import type { RunSnapshot } from './snapshot.js';

export type { StatusSummary } from '../contracts/run-snapshot.js';
import type { StatusSummary } from '../contracts/run-snapshot.js';

export function summarize(snapshot: RunSnapshot, executing: boolean): StatusSummary {
  return {
    runId: snapshot.runId,
    sessionId: snapshot.sessionId,
    cwd: snapshot.cwd,
    workflow: snapshot.workflow,
    state: snapshot.state,
    executing,
    launchMode: snapshot.launchMode,
    ...(snapshot.parentRunId === undefined ? {} : { parentRunId: snapshot.parentRunId }),
    ...(snapshot.phase === undefined ? {} : { phase: snapshot.phase }),
    ...(snapshot.failure === undefined ? {} : { failure: snapshot.failure }),
    ...(snapshot.result === undefined ? {} : { resultPath: snapshot.result.path }),
    createdAt: snapshot.createdAt,
    updatedAt: snapshot.updatedAt,
    ...(snapshot.terminalAt === undefined ? {} : { terminalAt: snapshot.terminalAt }),
    ...(snapshot.activeMs === undefined ? {} : { activeMs: snapshot.activeMs }),
    checkpoints: Object.entries(snapshot.checkpoints).map(([name, checkpoint]) => ({ name, state: checkpoint.state, prompt: checkpoint.prompt })),
    agents: Object.values(snapshot.agents),
    plugins: snapshot.plugins,
    proposals: Object.entries(snapshot.proposals).map(([id, { owner, state, summary, createdAt }]) => ({ id, owner, state, summary, createdAt })),
  };
}

/**
 * How a segment ended, as its caller sees it: the value of a completed run,
 * the error of a failed or halted one. A segment halted by a store fault ends
 * `interrupted` with that error, even when the store could not take the state.
 */
export function outcomeOf(snapshot: RunSnapshot, fault?: { readonly code: string; readonly message: string }): RunOutcome {
  const { runId, state, result, failure } = snapshot;
  if (fault && !TERMINAL_RUN_STATES.has(state)) return { runId, state: 'interrupted', error: { code: fault.code, message: fault.message } };
  if (state === 'completed' && result) {
    return { runId, state, resultPath: result.path, value: JSON.parse(readResultText(result.path)) as JsonValue };
  }
  return { runId, state, ...(failure ? { error: { code: failure.code, message: failure.message } } : {}) };
}
