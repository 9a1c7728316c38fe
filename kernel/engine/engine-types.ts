/** The engine's options; its public shapes (handles, outcomes, resume options) are contracts (contracts/engine-api.ts). */
import type { WorkflowError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SandboxLimits } from '../sandbox/pool.js';

export interface EngineOptions {
  readonly kernel: Kernel;
  readonly sessionId: string;
  /** Root of run storage; defaults to ~/.pi/workflows. */
  readonly root?: string;
  readonly agentDir?: string;
  readonly home?: string;
  readonly projectTrusted?: boolean;
  readonly sandbox?: Partial<SandboxLimits>;
  /** Reports best-effort failures (an event tap that threw). */
  readonly onWarning?: (error: WorkflowError) => void;
}

export type { AgentOptionsInput, PreparationInspection, ResumeOptions, RetryOptions, RunHandle, RunOutcome, StopResult } from '../contracts/engine-api.js';
