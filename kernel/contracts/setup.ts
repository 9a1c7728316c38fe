/** Trusted per-attempt hooks after resolution (spec 2 "AgentSetupHook"). */
import type { JsonValue } from '../json.js';
import type { AgentCallOptions } from './agent-options.js';
import type { WorkflowRunContext } from './function-context.js';
import type { AgentIdentity } from './identity.js';
import type { AgentTransport } from './transport.js';
import type { RunAccess } from './run-access.js';

/** Resolved, immutable result of preparation plus core resolution. */
export interface PreparedAgentSession {
  readonly model: string;
  readonly tools: readonly string[];
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
  readonly excludeTools: readonly string[];
  readonly systemPrompt?: string;
  readonly systemPromptAppend?: string;
  /**
   * Context file selection (AGENTS.md and the like): `false` loads none, an
   * array of path selectors keeps the matching discovered files, absent or
   * `true` keeps the transport's default discovery.
   */
  readonly contextFiles?: boolean | readonly string[];
  /** Transient retry and soft-budget text, delivered apart from the task. */
  readonly turnControl?: string;
  /**
   * The root candidate tool set (the launching session's tools), when the
   * engine knows it. Then `SessionInput.tools` starts as the concrete names
   * `tools` selected from it, and setup hooks narrow those names; without it,
   * `SessionInput.tools` starts as the prepared selectors.
   */
  readonly rootTools?: readonly string[];
}

/** A tool a transport gives its session; `execute` runs in the host when the model calls it. */
export interface CustomToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON schema of the parameters object. */
  readonly parameters: Readonly<Record<string, JsonValue>>;
  /** Resolves to the tool's JSON result; a throw is reported to the model as a tool error. */
  execute(params: JsonValue, signal: AbortSignal): Promise<JsonValue>;
  /**
   * For a session that outlives its host (a remote attempt): whether a call
   * this tool had already answered is run again when a resumed host
   * re-attaches. True only for tools whose host state the journal rebuilds
   * (the nested `agent` tools: their children replay); any other tool's
   * answered call keeps its stored answer, so its effect is not repeated.
   */
  readonly rerunOnReattach?: boolean;
}

export interface SessionInput {
  readonly cwd: string;
  readonly model: string;
  readonly tools: readonly string[];
  readonly sessionLabel: string;
  agentDir?: string;
  customTools?: CustomToolDefinition[];
  /** A replacement name, description or parameters for `workflow_result`; the transport runs it. */
  resultTool?: Omit<CustomToolDefinition, 'execute'>;
  systemPromptAppend?: string;
  extensionFactories?: readonly unknown[];
  /**
   * Narrowing by setup hooks: `{ tools?: string[], skills?: string[],
   * extensions?: string[] }`, each list read like a hook's `tools`
   * (positives an allow-list, negations the final overlay).
   */
  resourcePolicy?: Readonly<Record<string, JsonValue>>;
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly options: Readonly<AgentCallOptions>;
  /**
   * The effective parent ceiling of a nested child: its resolved tools, skills
   * and extensions can never exceed these (absent for top-level agents).
   */
  readonly ceiling?: ResolvedResources;
}

/** What a session actually loaded after selectors met the discovered candidates. */
export interface ResolvedResources {
  readonly tools: readonly string[];
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
}

export interface AgentSetup {
  prompt: string;
  options: AgentCallOptions;
  sessionInput: SessionInput;
  readonly prepared: PreparedAgentSession;
  transport: AgentTransport;
}

export interface AgentSetupContext {
  readonly run: WorkflowRunContext;
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly identity: AgentIdentity;
  readonly attempt: number;
  readonly signal: AbortSignal;
  /** The run this agent belongs to, for plugins that keep run state (budgets). */
  readonly access: RunAccess;
}

export interface AgentSetupHook {
  readonly priority?: number;
  setup(agent: AgentSetup, context: AgentSetupContext): void | Promise<void>;
}
