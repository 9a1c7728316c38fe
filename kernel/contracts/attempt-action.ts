/** Per-attempt actions in /workflow (spec 2 "AgentAttemptAction"). */
import type { JsonValue } from '../json.js';

export interface AttemptActionUi {
  notify(message: string, level?: 'info' | 'warning' | 'error'): void;
  confirm(title: string, message: string): Promise<boolean>;
  select(title: string, options: readonly string[]): Promise<string | undefined>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
  setWorkingMessage?(message?: string): void;
}

interface ActionContextBase {
  /** Persisted session reference of the latest attempt, when present. */
  readonly sessionReference?: Readonly<Record<string, JsonValue>>;
  /** The live session, only while the attempt is active. */
  readonly liveSession?: unknown;
  readonly signal: AbortSignal;
  readonly ui: AttemptActionUi;
}

export interface WorkflowAttemptActionContext extends ActionContextBase {
  readonly run: Readonly<Record<string, JsonValue>>;
  readonly agent: Readonly<Record<string, JsonValue>>;
  readonly attempt: Readonly<Record<string, JsonValue>>;
}

export interface StandaloneAttemptActionContext extends ActionContextBase {
  readonly agent: Readonly<Record<string, JsonValue>>;
}

export interface AgentAttemptAction {
  readonly label: string;
  visible(context: WorkflowAttemptActionContext): boolean;
  run(context: WorkflowAttemptActionContext): void | Promise<void>;
  visibleStandalone?(context: StandaloneAttemptActionContext): boolean;
  runStandalone?(context: StandaloneAttemptActionContext): void | Promise<void>;
}
