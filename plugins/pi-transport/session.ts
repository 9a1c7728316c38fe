/**
 * A kernel `WorkflowSession` over one in-process Pi `AgentSession`: state,
 * synchronous stats, progress subscriptions, prompt, steer, abort and awaited
 * idempotent disposal (spec 2 "AgentSetupHook", transport paragraph).
 *
 * Steering text given before the prompt (turn control) is queued on the
 * native session before the prompt starts; Pi drains that queue right after
 * the prompt message, before the first model request, so the user message
 * stays exactly the prompt and the system prompt never changes.
 *
 * Every prompt declares its turn's result schema first: a named handle keeps
 * this one session across sends, and each send may change the schema.
 */
import type { AgentSession, AgentSessionEvent } from '@earendil-works/pi-coding-agent';
import type { JsonSchema, ResolvedResources, SessionProgress, SessionStats, WorkflowSession } from '../../kernel/index.js';
import type { JsonValue, WorkflowError } from '../../kernel/index.js';
import { sessionStats } from './stats.js';

type ProgressListener = (progress: SessionProgress) => void;

/** Fan-out of progress events; remembers the submitted result. Listener errors never reach Pi. */
export class ProgressChannel {
  readonly #listeners = new Set<ProgressListener>();
  #result: { readonly value: JsonValue } | undefined;

  get result(): { readonly value: JsonValue } | undefined {
    return this.#result;
  }

  subscribe(listener: ProgressListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  emit(progress: SessionProgress): void {
    if (progress.type === 'result') this.#result = { value: progress.value };
    for (const listener of [...this.#listeners]) {
      try {
        listener(progress);
      } catch {
        // A consumer's bug must not break the native agent loop.
      }
    }
  }

  /** A new prompt waits for a new result. */
  resetResult(): void {
    this.#result = undefined;
  }

  clear(): void {
    this.#listeners.clear();
  }
}

/** The host fault that ended the session's transcript, if one did (transcript.ts). */
export interface TranscriptFaults {
  readonly fault: WorkflowError | undefined;
  onFault(listener: () => void): void;
}

/** The session's result tool, as the session drives it. */
export interface TurnResultTool {
  readonly name: string;
  /** Declares the next turn's schema (undefined: `{ result: string }`); throws for a schema that cannot compile. */
  useSchema(outputSchema: JsonSchema | undefined): void;
}

export interface PiWorkflowSessionOptions {
  readonly native: AgentSession;
  /** The session file Pi appends to (absolute), recorded in the reference. */
  readonly sessionFile?: string | undefined;
  /** Failing to write the transcript aborts the agent, and the prompt rejects with that fault. */
  readonly transcript?: TranscriptFaults | undefined;
  readonly channel: ProgressChannel;
  readonly resultTool: TurnResultTool;
  /** The schema of a prompt called without a turn: the creation-time `options.outputSchema`. */
  readonly defaultOutputSchema?: JsonSchema | undefined;
  /** What the session resolved (read live; frozen at disposal). */
  readonly resources: () => ResolvedResources;
  /** Retry or soft-budget text delivered right after the prompt. */
  readonly turnControl?: string | undefined;
}

const SOURCE = { source: 'extension' } as const;

export class PiWorkflowSession implements WorkflowSession {
  readonly reference: Readonly<Record<string, JsonValue>>;
  readonly nativeSessionId: string;
  readonly turnControlDelivered?: boolean;
  readonly #native: AgentSession;
  readonly #channel: ProgressChannel;
  readonly #resultTool: TurnResultTool;
  readonly #defaultOutputSchema: JsonSchema | undefined;
  readonly #resources: () => ResolvedResources;
  readonly #transcript: TranscriptFaults | undefined;
  #finalResources: ResolvedResources | undefined;
  readonly #pendingSteers: string[] = [];
  readonly #unsubscribe: () => void;
  #state: 'idle' | 'running' | 'disposed' = 'idle';
  #abortRequested = false;
  #stopping = false;
  #finalStats: SessionStats | undefined;
  #disposal: Promise<void> | undefined;

  constructor(options: PiWorkflowSessionOptions) {
    this.#native = options.native;
    this.#channel = options.channel;
    this.#resultTool = options.resultTool;
    this.#defaultOutputSchema = options.defaultOutputSchema;
    this.#resources = options.resources;
    this.#transcript = options.transcript;
    this.#transcript?.onFault(() => void this.#native.abort());
    this.nativeSessionId = options.native.sessionId;
    this.reference = Object.freeze({ transport: 'pi', sessionId: options.native.sessionId, ...(options.sessionFile === undefined ? {} : { sessionFile: options.sessionFile }) });
    if (options.turnControl !== undefined && options.turnControl !== '') {
      this.#pendingSteers.push(options.turnControl);
      this.turnControlDelivered = true;
    }
    this.#unsubscribe = options.native.subscribe((event) => this.#onNativeEvent(event));
  }

  state(): 'idle' | 'running' | 'disposed' {
    return this.#state;
  }

  stats(): SessionStats {
    return this.#finalStats ?? sessionStats(this.#native);
  }

  systemPrompt(): string {
    return this.#native.systemPrompt;
  }

  /** `provider/model:thinking` of the model Pi runs this session on (the agent dir's default when the agent named none). */
  model(): string {
    const model = this.#native.model;
    return model === undefined ? '' : `${model.provider}/${model.id}:${this.#native.thinkingLevel}`;
  }

  /** Active tools (own tools included), loaded skills and loaded extension paths. */
  resources(): ResolvedResources {
    return this.#finalResources ?? this.#resources();
  }

  subscribe(listener: ProgressListener): () => void {
    return this.#channel.subscribe(listener);
  }

  /**
   * Resolves when Pi settles. Rejects when the run was aborted or ended in a
   * provider error without a result; a run that merely ends without a valid
   * `workflow_result` call resolves with no result event.
   *
   * `turn` is authoritative when given (the engine always passes it; no
   * `outputSchema` means `{ result: string }`); without it the creation-time
   * schema applies. A schema that cannot compile rejects with `INVALID_SCHEMA`
   * before anything is sent. A host fault writing the transcript rejects
   * with that fault (`STORE_WRITE_FAILED`), result or not: the run halts.
   */
  async prompt(text: string, turn?: { readonly outputSchema?: JsonSchema }): Promise<void> {
    if (this.#state === 'disposed') throw new Error('the agent session was disposed');
    if (this.#state === 'running') throw new Error('the agent session is already running');
    this.#resultTool.useSchema(turn === undefined ? this.#defaultOutputSchema : turn.outputSchema);
    this.#state = 'running';
    this.#abortRequested = false;
    this.#stopping = false;
    this.#channel.resetResult();
    try {
      for (const steer of this.#pendingSteers.splice(0)) await this.#native.steer(steer, undefined, SOURCE);
      await this.#native.prompt(text, { expandPromptTemplates: false, ...SOURCE });
    } catch (error) {
      throw this.#transcript?.fault ?? error;
    } finally {
      if (this.#state === 'running') this.#state = 'idle';
    }
    const fault = this.#transcript?.fault;
    if (fault !== undefined) throw fault;
    if (this.#channel.result !== undefined) return;
    if (this.#abortRequested) throw new Error('the agent was aborted');
    const failure = this.#native.state.errorMessage;
    if (failure !== undefined) throw new Error(failure);
  }

  async steer(text: string): Promise<void> {
    if (this.#state === 'disposed') throw new Error('the agent session was disposed');
    if (this.#state === 'running') await this.#native.steer(text, undefined, SOURCE);
    else this.#pendingSteers.push(text);
  }

  async abort(): Promise<void> {
    if (this.#state !== 'running') return;
    this.#abortRequested = true;
    await this.#native.abort();
  }

  dispose(): Promise<void> {
    this.#disposal ??= this.#dispose();
    return this.#disposal;
  }

  async #dispose(): Promise<void> {
    if (this.#state === 'running') {
      this.#abortRequested = true;
      await this.#native.abort().catch(() => undefined);
    }
    this.#finalStats = sessionStats(this.#native);
    this.#finalResources = this.#resources();
    const runner = this.#native.extensionRunner;
    if (runner.hasHandlers('session_shutdown')) await runner.emit({ type: 'session_shutdown', reason: 'quit' }).catch(() => undefined);
    this.#unsubscribe();
    this.#native.dispose();
    this.#channel.clear();
    this.#state = 'disposed';
  }

  #onNativeEvent(event: AgentSessionEvent): void {
    switch (event.type) {
      case 'agent_start':
        // An abort that arrived during the prompt's preflight found no run to stop.
        if (this.#abortRequested) void this.#native.abort();
        return;
      case 'turn_start':
        this.#channel.emit({ type: 'turn_start' });
        return;
      case 'tool_execution_start':
        this.#channel.emit({ type: 'tool', name: event.toolName });
        return;
      case 'turn_end':
        this.#channel.emit({ type: 'turn_end', stats: sessionStats(this.#native) });
        if (this.#channel.result !== undefined) this.#stopAfterResult(event.toolResults);
        return;
      default:
        return;
    }
  }

  /**
   * The result ends the agent's work. Pi stops by itself when every tool of
   * the batch asked to terminate (only `workflow_result` does); otherwise, or
   * when messages are queued, the run is cut here before another request.
   */
  #stopAfterResult(toolResults: readonly { readonly toolName: string; readonly isError: boolean }[]): void {
    if (this.#stopping) return;
    this.#stopping = true;
    const queued = this.#native.agent.hasQueuedMessages();
    this.#native.clearQueue();
    const terminates = toolResults.every((result) => result.toolName === this.#resultTool.name && !result.isError);
    if (!terminates || queued) void this.#native.abort();
  }
}
