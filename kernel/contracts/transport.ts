/** The session that runs one agent attempt (spec 2 "AgentSetupHook", transport paragraph). */
import type { JsonValue } from '../json.js';
import type { AgentSetupContext, PreparedAgentSession, ResolvedResources, SessionInput } from './setup.js';
import type { JsonSchema } from './agent-options.js';

export interface SessionStats {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly turns: number;
}

export type SessionProgress =
  | { readonly type: 'turn_start' }
  | { readonly type: 'turn_end'; readonly stats: SessionStats }
  | { readonly type: 'tool'; readonly name: string }
  | { readonly type: 'result'; readonly value: JsonValue };

export interface WorkflowSession {
  /**
   * Transport-neutral reference persisted in `agentSessions`; never reconnected
   * on cold resume. An optional string `via` says where the session lives
   * (`tmux`); dashboards show it on the agent's row.
   */
  readonly reference: Readonly<Record<string, JsonValue>>;
  /** Set when the transport already delivered turn control with the prompt. */
  readonly turnControlDelivered?: boolean;
  /** The native session ID, when the transport has one (recorded with system prompts). */
  readonly nativeSessionId?: string;
  /** The concrete model the session runs, `provider/model:thinking` (frozen when the configuration named none). */
  model?(): string;
  /**
   * The full effective system prompt, read at every native agent start
   * (system-prompts.json). A session that learns it only when its turn ends
   * (a remote attempt) answers undefined until then: the engine reads it again
   * after the turn.
   */
  systemPrompt?(): string | undefined;
  /** The concrete model the session runs, `provider/model:thinking`, when the transport knows it (an agent without a model runs on the transport's default). */
  model?(): string | undefined;
  state(): 'idle' | 'running' | 'disposed';
  stats(): SessionStats;
  subscribe(listener: (progress: SessionProgress) => void): () => void;
  /** One turn; `outputSchema` is the turn's own result schema (handle sends may change it). */
  prompt(text: string, turn?: { readonly outputSchema?: JsonSchema }): Promise<void>;
  /** The resolved resources, which become the ceiling of nested children. */
  resources?(): ResolvedResources;
  steer(text: string): Promise<void>;
  abort(): Promise<void>;
  /** Awaited and idempotent. */
  dispose(): Promise<void>;
}

export interface AgentTransportContext extends AgentSetupContext {
  readonly prepared: PreparedAgentSession;
  /** Whether project resources and settings may load (the run's trust decision). */
  readonly projectTrusted: boolean;
}

export interface AgentTransport {
  readonly name: string;
  createSession(input: SessionInput, context: AgentTransportContext): Promise<WorkflowSession>;
}
