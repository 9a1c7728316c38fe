/**
 * What a finished execution segment becomes for the model: the inline value
 * when the persisted result fits Pi's 50 KiB tool-output limit and the main
 * context has room, else the completion descriptor (spec 1 "Other records");
 * a failure or a resumable halt with its error; any other end with its state.
 */
import { lstatSync } from 'node:fs';
import { DEFAULT_MAX_BYTES, type ContextUsage } from '@earendil-works/pi-coding-agent';
import type { JsonValue, RunOutcome, RunState } from '../../kernel/index.js';

/** Pi's tool-output limit (50 KiB). */
export const INLINE_RESULT_BYTES = DEFAULT_MAX_BYTES;
/** Context kept free for the model's answer after the value (Pi reserves as much before compacting). */
export const RESPONSE_HEADROOM_TOKENS = 16_384;
/** The same rough estimate Pi uses: four bytes per token. */
const BYTES_PER_TOKEN = 4;

/** Why the run was waited for although a background run was asked for (print and JSON mode). */
interface WaitNote {
  readonly message?: string;
}

export interface CompletionDescriptor extends WaitNote {
  readonly state: 'completed';
  readonly runId: string;
  readonly resultPath: string;
  readonly resultBytes: number;
  readonly inlined: false;
}

export interface InlineCompletion extends WaitNote {
  readonly state: 'completed';
  readonly runId: string;
  readonly value: JsonValue;
  readonly resultPath: string;
  readonly resultBytes: number;
  readonly inlined: true;
}

export interface SegmentEnd extends WaitNote {
  readonly state: Exclude<RunState, 'completed'>;
  readonly runId: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export type RunResult = InlineCompletion | CompletionDescriptor | SegmentEnd;

/** Whether `bytes` more fit the context with room for the answer; unknown usage (after a compaction) does not block. */
export function contextHasRoom(usage: ContextUsage | undefined, bytes: number): boolean {
  if (usage === undefined || usage.tokens === null) return true;
  return usage.tokens + Math.ceil(bytes / BYTES_PER_TOKEN) + RESPONSE_HEADROOM_TOKENS <= usage.contextWindow;
}

/** Whether a persisted value of `bytes` is returned inline: within Pi's tool-output limit and the context's room. */
export function fitsInline(bytes: number, usage: ContextUsage | undefined): boolean {
  return bytes <= INLINE_RESULT_BYTES && contextHasRoom(usage, bytes);
}

export function runResult(outcome: RunOutcome, usage: ContextUsage | undefined): RunResult {
  const { runId, state } = outcome;
  if (state !== 'completed') return { state, runId, ...(outcome.error ? { error: outcome.error } : {}) };
  const resultPath = outcome.resultPath ?? '';
  const resultBytes = lstatSync(resultPath).size;
  if (fitsInline(resultBytes, usage)) {
    return { state, runId, value: outcome.value ?? null, resultPath, resultBytes, inlined: true };
  }
  return { state, runId, resultPath, resultBytes, inlined: false };
}

/** The follow-up text of a background run's end. */
export function followUpText(workflowName: string, result: RunResult): string {
  const head = `Workflow run ${result.runId} (${workflowName}) ${result.state.replace('_', ' ')}.`;
  return `${head}\n${JSON.stringify(result, null, 2)}`;
}
