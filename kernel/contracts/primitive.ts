/**
 * Script primitives contributed by plugins (checkpoint, evidence, tools.X,
 * withWorktree ...): removing the plugin removes the global. The engine
 * journals every completed call and replays it, so `run` only performs it.
 */
import type { JsonValue } from '../json.js';
import type { RunAccess } from './run-access.js';

export type PrimitiveKind =
  /** `name(...args)` → promise of a JSON value. */
  | 'effect'
  /** `name(label, callback)`: `run` returns the scope's reference; the callback runs in the scope `name:label`. */
  | 'scope'
  /** `name.member(...args)` → promise of a JSON value. */
  | 'namespace';

export interface PrimitiveCall {
  readonly name: string;
  /** The member of a namespace primitive (`read` in `tools.read`). */
  readonly member?: string;
  readonly args: readonly JsonValue[];
  /** Journal key of this call. */
  readonly key: string;
  readonly site: string;
  readonly scope: readonly string[];
  /** The working directory in effect at the call: the run's cwd, or the innermost scope's (a worktree). */
  readonly cwd: string;
}

export interface DecisionRequest {
  readonly name: string;
  readonly prompt: string;
  readonly context?: JsonValue;
}

export interface StoredEvidence {
  readonly sha256: string;
  readonly path: string;
  readonly bytes: number;
}

export interface PrimitiveRunInfo {
  readonly runId: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly runDir: string;
  readonly workflowName: string;
}

export interface PrimitiveContext {
  readonly run: PrimitiveRunInfo;
  /** Aborted when the run is stopped. */
  readonly signal: AbortSignal;
  /** Puts the run in `awaiting_input` until a decision for `request.name` arrives; resolves to approved. */
  awaitDecision(request: DecisionRequest): Promise<boolean>;
  /** Stores text in the run's content-addressed evidence directory. */
  writeEvidence(text: string): StoredEvidence;
  readonly access: RunAccess;
}

export interface PrimitiveDefinition {
  readonly name: string;
  readonly kind: PrimitiveKind;
  run(call: PrimitiveCall, context: PrimitiveContext): JsonValue | Promise<JsonValue>;
  /** Checks a value about to be replayed from the journal; throw to refuse it. */
  replay?(value: JsonValue, call: PrimitiveCall, context: PrimitiveContext): void;
  /**
   * Scope primitives only: the working directory of operations inside the
   * scope (shell, agents, nested scopes), read from the scope's reference.
   */
  scopeCwd?(value: JsonValue): string | undefined;
}
