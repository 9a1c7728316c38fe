/**
 * A kernel `WorkflowSession` over the interactive `pi` in one tmux pane,
 * driven through the pane's private channel. The first prompt carries the
 * turn control after the task (`turnControlDelivered`), so the runner never
 * steers it separately. Every `workflow_result` submission is judged here
 * with the turn's contract (ajv); the first valid one is the result. A turn
 * ends at the pane's next `agent_end`; the pane closing first fails it with
 * `AGENT_FAILED`.
 */
import {
  WorkflowError,
  compileResultSchema,
  judgeResult,
  messageOf,
  resultToolContract,
  type CustomToolDefinition,
  type JsonSchema,
  type JsonValue,
  type ResultToolContract,
  type SessionProgress,
  type SessionStats,
  type WorkflowSession,
} from '../../kernel/index.js';
import type { PaneChannel } from './channel.js';
import type { HostMessage, PaneHello, PaneMessage, PaneTool } from './protocol.js';

export interface PaneSessionOptions {
  readonly channel: PaneChannel;
  readonly hello: PaneHello;
  readonly reference: Readonly<Record<string, JsonValue>>;
  readonly defaultOutputSchema?: JsonSchema | undefined;
  readonly resultOverride?: Omit<CustomToolDefinition, 'execute'> | undefined;
  readonly customTools: readonly CustomToolDefinition[];
  readonly turnControl?: string | undefined;
  /** Whether the pane still exists with its program running (asked when a run ends without a result). */
  readonly alive: () => Promise<boolean>;
  /** Closes the pane and removes the attempt's files; called once by dispose. */
  readonly close: () => Promise<void>;
  /** Names the pane in errors. */
  readonly where: string;
}

type Listener = (progress: SessionProgress) => void;

interface Turn {
  readonly contract: ResultToolContract;
  result?: { readonly value: JsonValue };
  resolve(): void;
  reject(error: Error): void;
}

const ZERO: SessionStats = { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 };

/** The pane-side tool of a contract. */
export function paneTool(contract: ResultToolContract): PaneTool {
  return { name: contract.name, description: contract.description, parameters: contract.parameters };
}

export class PaneSession implements WorkflowSession {
  readonly reference: Readonly<Record<string, JsonValue>>;
  readonly turnControlDelivered = true;
  readonly nativeSessionId: string;
  readonly #options: PaneSessionOptions;
  readonly #listeners = new Set<Listener>();
  readonly #tools = new Map<string, CustomToolDefinition>();
  readonly #toolCalls = new AbortController();
  #turnControl: string | undefined;
  readonly #pendingSteers: string[] = [];
  #turn: Turn | undefined;
  #stats: SessionStats = ZERO;
  #state: 'idle' | 'running' | 'disposed' = 'idle';
  #gone: Error | undefined;
  #disposal: Promise<void> | undefined;

  constructor(options: PaneSessionOptions) {
    this.#options = options;
    this.reference = options.reference;
    this.nativeSessionId = options.hello.sessionId;
    this.#turnControl = options.turnControl === '' ? undefined : options.turnControl;
    for (const tool of options.customTools) this.#tools.set(tool.name, tool);
  }

  /** The channel's handlers: everything the pane says after `hello`. */
  onMessage(message: Exclude<PaneMessage, PaneHello>): void {
    switch (message.type) {
      case 'turn_start':
        this.#emit({ type: 'turn_start' });
        return;
      case 'turn_end':
        this.#stats = message.stats;
        this.#emit({ type: 'turn_end', stats: this.#stats });
        return;
      case 'tool':
        this.#emit({ type: 'tool', name: message.name });
        return;
      case 'tool_call':
        void this.#runTool(message.id, message.name, message.params);
        return;
      case 'result':
        this.#send({ type: 'result_ack', id: message.id, ...this.#judge(message.params) });
        return;
      case 'agent_end':
        this.#endTurn();
        return;
    }
  }

  /** The pane went away: its `pi` exited or was killed, or it broke the protocol. */
  onClose(error?: Error): void {
    this.#gone = new WorkflowError('AGENT_FAILED', `the agent's tmux pane ${this.#options.where} closed${error === undefined ? '' : ` (${error.message})`} before the agent finished`);
    this.#toolCalls.abort();
    const turn = this.#turn;
    this.#turn = undefined;
    if (this.#state === 'running') this.#state = 'idle';
    if (turn?.result !== undefined) turn.resolve();
    else turn?.reject(this.#gone);
  }

  state(): 'idle' | 'running' | 'disposed' {
    return this.#state;
  }

  stats(): SessionStats {
    return this.#stats;
  }

  model(): string {
    return this.#options.hello.model ?? '';
  }

  systemPrompt(): string {
    return this.#options.hello.systemPrompt;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  prompt(text: string, turn?: { readonly outputSchema?: JsonSchema }): Promise<void> {
    if (this.#state === 'disposed') return Promise.reject(new Error('the agent session was disposed'));
    if (this.#state === 'running') return Promise.reject(new Error('the agent session is already running'));
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const contract = resultToolContract(turn === undefined ? this.#options.defaultOutputSchema : turn.outputSchema, this.#options.resultOverride);
    try {
      compileResultSchema(contract.valueSchema);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    // Turn control and steers given before the prompt follow the task in the same message.
    const parts = [text, ...(this.#turnControl === undefined ? [] : [this.#turnControl]), ...this.#pendingSteers.splice(0)];
    this.#turnControl = undefined;
    this.#state = 'running';
    return new Promise<void>((resolve, reject) => {
      this.#turn = { contract, resolve, reject };
      this.#send({ type: 'prompt', text: parts.join('\n\n'), resultTool: paneTool(contract) });
    });
  }

  async steer(text: string): Promise<void> {
    if (this.#state === 'disposed') throw new Error('the agent session was disposed');
    if (this.#state === 'running') this.#send({ type: 'steer', text });
    else this.#pendingSteers.push(text);
  }

  async abort(): Promise<void> {
    if (this.#state === 'running') this.#send({ type: 'abort' });
  }

  dispose(): Promise<void> {
    this.#disposal ??= this.#dispose();
    return this.#disposal;
  }

  async #dispose(): Promise<void> {
    this.#toolCalls.abort();
    const turn = this.#turn;
    this.#turn = undefined;
    turn?.reject(new Error('the agent session was disposed'));
    this.#state = 'disposed';
    this.#listeners.clear();
    await this.#options.close();
  }

  #send(message: HostMessage): void {
    this.#options.channel.send(message);
  }

  #emit(progress: SessionProgress): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(progress);
      } catch {
        // A consumer's bug must not break the channel.
      }
    }
  }

  /** Judges one submission: an error text for the model, or nothing (accepted, or a repeat after the result). */
  #judge(params: JsonValue): { error?: string } {
    const turn = this.#turn;
    if (turn === undefined) return { error: 'No workflow task is waiting for a result now.' };
    if (turn.result !== undefined) return {};
    const judged = judgeResult(turn.contract, params);
    if (!judged.ok) return { error: judged.message };
    turn.result = { value: judged.value };
    this.#emit({ type: 'result', value: judged.value });
    return {};
  }

  /**
   * A run ended. Without a result it may be the pane's `pi` stopping because
   * its pane was killed (Pi 1.x ends the run on SIGHUP before it exits), so
   * tmux is asked first: a pane that is gone fails the turn as closed.
   */
  #endTurn(): void {
    const turn = this.#turn;
    if (turn === undefined) return;
    const finish = (): void => {
      if (this.#turn !== turn) return; // closed or disposed meanwhile
      this.#turn = undefined;
      this.#state = 'idle';
      turn.resolve();
    };
    if (turn.result !== undefined) {
      finish();
      return;
    }
    this.#options.alive().then(
      (alive) => {
        if (alive) finish();
        else if (this.#turn === turn) this.onClose();
      },
      finish,
    );
  }

  async #runTool(id: string, name: string, params: JsonValue): Promise<void> {
    const tool = this.#tools.get(name);
    try {
      if (tool === undefined) throw new Error(`the workflow host has no tool "${name}"`);
      const output = await tool.execute(params, this.#toolCalls.signal);
      this.#send({ type: 'tool_result', id, ok: true, text: typeof output === 'string' ? output : JSON.stringify(output) });
    } catch (error) {
      this.#send({ type: 'tool_result', id, ok: false, text: messageOf(error) });
    }
  }
}
