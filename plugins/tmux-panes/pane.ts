/**
 * The pane side: what the tmux-panes entry does inside the interactive `pi`
 * an agent's pane runs (its environment names a pane configuration file).
 * It connects to the host's private socket, says `hello` with the session it
 * runs, offers `workflow_result` (the host judges every submission) and the
 * host's custom tools (the host runs them), turns the host's `prompt` and
 * `steer` messages into user messages, and reports turns, tools and the end
 * of each run. The user may type into the pane at any time: that is the live
 * handoff; the result still only counts through `workflow_result`.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { TSchema } from 'typebox';
import type { ExtensionAPI, ExtensionContext, ToolDefinition } from '@earendil-works/pi-coding-agent';
import { boundaryCopy, resultToolPresentation, type JsonValue } from '../../kernel/index.js';
import {
  LineSplitter,
  PANE_CONFIG_ENV,
  PROTOCOL_VERSION,
  parseLine,
  validateHostMessage,
  validatePaneConfig,
  type HostMessage,
  type PaneConfig,
  type PaneMessage,
  type PaneStats,
  type PaneTool,
} from './protocol.js';

/** One pane side per process, however many copies of the entry Pi loads (`-e` plus an installed package). */
const ACTIVE = Symbol.for('pi-extensible-workflows.tmux-panes.pane');

export function readPaneConfig(file: string): PaneConfig {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`the pane configuration ${file} cannot be read: ${(error as Error).message}`);
  }
  if (!validatePaneConfig(value)) throw new Error(`the pane configuration ${file} is invalid`);
  return value;
}

type Pending = { resolve(message: HostMessage): void; reject(error: Error): void };

/** Runs the pane side when this process is an agent's pane; false elsewhere. */
export function startPaneSide(pi: ExtensionAPI, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env[PANE_CONFIG_ENV];
  if (file === undefined || file === '') return false;
  const global = globalThis as { [ACTIVE]?: true };
  if (global[ACTIVE]) return true;
  global[ACTIVE] = true;
  new PaneSide(pi, readPaneConfig(file));
  return true;
}

class PaneSide {
  readonly #pi: ExtensionAPI;
  readonly #socket: Socket;
  readonly #pending = new Map<string, Pending>();
  #context: ExtensionContext | undefined;
  #next = 0;
  #stats: { inputTokens: number; outputTokens: number; costUsd: number; turns: number } = { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 };
  #lost = false;
  /** The current result tool's name, and whether the host accepted a result in the running turn. */
  #resultName: string;
  #accepted = false;
  /** The declared result tool's parameters: an unchanged schema is not registered again (the transcript stays). */
  #resultKey: string;

  constructor(pi: ExtensionAPI, config: PaneConfig) {
    this.#pi = pi;
    this.#socket = connect(config.socket);
    this.#socket.setEncoding('utf8');
    const lines = new LineSplitter(
      (line) => {
        try {
          this.#receive(parseLine(line, validateHostMessage, 'the workflow host'));
        } catch (error) {
          this.#hostLost((error as Error).message);
        }
      },
      (error) => this.#hostLost(error.message),
    );
    this.#socket.on('data', (chunk: string) => lines.push(chunk));
    this.#socket.on('error', () => this.#hostLost('the connection failed'));
    this.#socket.on('close', () => this.#hostLost('the connection closed'));
    this.#resultKey = JSON.stringify(config.resultTool);
    this.#resultName = config.resultTool.name;
    pi.registerTool(this.#resultTool(config.resultTool));
    for (const tool of config.customTools) pi.registerTool(this.#hostTool(tool));
    pi.on('session_start', (_event, ctx) => {
      this.#context = ctx;
      const model = ctx.model === undefined ? undefined : `${ctx.model.provider}/${ctx.model.id}:${ctx.thinkingLevel ?? pi.getThinkingLevel()}`;
      const sessionFile = ctx.sessionManager.getSessionFile();
      this.#send({
        type: 'hello',
        version: PROTOCOL_VERSION,
        token: config.token,
        sessionId: ctx.sessionManager.getSessionId(),
        ...(sessionFile === undefined ? {} : { sessionFile }),
        ...(model === undefined ? {} : { model }),
        systemPrompt: ctx.getSystemPrompt(),
        tools: pi.getActiveTools(),
      });
    });
    pi.on('turn_start', () => this.#send({ type: 'turn_start' }));
    pi.on('tool_execution_start', (event) => this.#send({ type: 'tool', name: event.toolName }));
    pi.on('turn_end', (event) => {
      const usage = (event.message as { role?: string; usage?: { input?: number; output?: number; cost?: { total?: number } } }).usage;
      const stats: PaneStats = {
        inputTokens: this.#stats.inputTokens + (usage?.input ?? 0),
        outputTokens: this.#stats.outputTokens + (usage?.output ?? 0),
        costUsd: this.#stats.costUsd + (usage?.cost?.total ?? 0),
        turns: this.#stats.turns + (event.message.role === 'assistant' ? 1 : 0),
      };
      this.#stats = { ...stats };
      this.#privateSessionFile();
      this.#send({ type: 'turn_end', stats });
      // Pi stops by itself when the batch was only the accepted result; other tools in it would let the model go on.
      if (this.#accepted && !event.toolResults.every((result) => result.toolName === this.#resultName && !result.isError)) this.#context?.abort();
    });
    pi.on('agent_end', () => this.#send({ type: 'agent_end' }));
  }

  /**
   * Pi creates the session file with the umask's mode once the first answer
   * arrives; transcripts are private (0600). The folder is 0700 meanwhile.
   */
  #privateSessionFile(): void {
    const file = this.#context?.sessionManager.getSessionFile();
    if (file === undefined) return;
    try {
      chmodSync(file, 0o600);
    } catch {
      // Not written yet (no answer so far): the next turn end tries again.
    }
  }

  #send(message: PaneMessage): void {
    if (!this.#lost && !this.#socket.destroyed) this.#socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and resolves with the host's answer of the same `id`. */
  #ask(message: Extract<PaneMessage, { id: string }>): Promise<HostMessage> {
    if (this.#lost) return Promise.reject(new Error('the workflow host is gone'));
    return new Promise((resolve, reject) => {
      this.#pending.set(message.id, { resolve, reject });
      this.#send(message);
    });
  }

  #receive(message: HostMessage): void {
    switch (message.type) {
      case 'prompt':
        this.#accepted = false;
        this.#resultName = message.resultTool.name;
        if (JSON.stringify(message.resultTool) !== this.#resultKey) {
          this.#resultKey = JSON.stringify(message.resultTool);
          this.#pi.registerTool(this.#resultTool(message.resultTool));
        }
        this.#deliver(message.text, false);
        return;
      case 'steer':
        this.#deliver(message.text, true);
        return;
      case 'abort':
        this.#context?.abort();
        return;
      case 'tool_result':
      case 'result_ack': {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        pending?.resolve(message);
        return;
      }
      case 'shutdown':
        this.#lost = true;
        this.#socket.end();
        this.#context?.shutdown();
        return;
    }
  }

  /**
   * A prompt starts a run when the agent is idle; while it runs (a user typed
   * first), it follows up. A steer only steers a running agent: one that
   * arrives as the run ends must not start another.
   */
  #deliver(text: string, steer: boolean): void {
    const idle = this.#context?.isIdle() ?? true;
    if (steer) {
      if (!idle) this.#pi.sendUserMessage(text, { deliverAs: 'steer' });
    } else if (idle) this.#pi.sendUserMessage(text);
    else this.#pi.sendUserMessage(text, { deliverAs: 'followUp' });
  }

  #resultTool(tool: PaneTool): ToolDefinition {
    return {
      ...resultToolPresentation({ name: tool.name, description: tool.description }),
      parameters: tool.parameters as unknown as TSchema,
      executionMode: 'sequential',
      execute: async (_id, params) => {
        const answer = await this.#ask({ type: 'result', id: `r${this.#next++}`, params: plain(params) });
        if (answer.type === 'result_ack' && answer.error !== undefined) throw new Error(answer.error);
        this.#accepted = true;
        return { content: [{ type: 'text', text: 'Result recorded. Your work is done; stop now.' }], details: undefined, terminate: true };
      },
    };
  }

  #hostTool(tool: PaneTool): ToolDefinition {
    return {
      name: tool.name,
      label: tool.name,
      description: tool.description,
      parameters: tool.parameters as unknown as TSchema,
      execute: async (_id, params) => {
        const answer = await this.#ask({ type: 'tool_call', id: `t${this.#next++}`, name: tool.name, params: plain(params) });
        if (answer.type !== 'tool_result') throw new Error('the workflow host answered with the wrong message');
        if (!answer.ok) throw new Error(answer.text);
        return { content: [{ type: 'text', text: answer.text }], details: undefined };
      },
    };
  }

  /** The host went away (it exited, or broke the protocol): stop waiting, keep the session for the user. */
  #hostLost(why: string): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#socket.destroy();
    for (const pending of this.#pending.values()) pending.reject(new Error(`the workflow host is gone: ${why}`));
    this.#pending.clear();
    this.#context?.ui.notify(`The workflow host is gone (${why}); this session is yours now.`, 'warning');
  }
}

function plain(value: unknown): JsonValue {
  return boundaryCopy(value, 'The tool parameters');
}
