/**
 * A test double for the transport hook point: each agent "answers" by
 * submitting a result derived from its prompt. For kernel unit tests only;
 * the real Pi transport has its own end-to-end tests.
 */
import type { AgentTransport, CustomToolDefinition, KernelPlugin, SessionProgress, WorkflowSession } from '../../kernel/index.js';
// From its own small module, not the kernel's index: the crash and fuzz hosts load the built kernel, and this
// double alone must not load the whole source graph beside it.
import { TRANSPORT_CAPABILITY } from '../../kernel/plugin-api.js';
import type { JsonValue } from '../../kernel/json.js';

export interface EchoCall {
  readonly prompt: string;
  readonly model: string;
  readonly label: string;
  /** Which session answered (sessions are numbered from 1 per transport). */
  readonly session: number;
  /** The prompt's turn within its session, from 1. */
  readonly turn: number;
}

export interface EchoSession {
  readonly tools: readonly CustomToolDefinition[];
  readonly signal: AbortSignal;
}

export interface EchoTransportOptions {
  /**
   * Computes the submitted value; default `{ result: 'echo:' + prompt }`. It
   * may call the session's custom tools (nested `agent`, `get_subagent_result`).
   */
  readonly answer?: (prompt: string, session: EchoSession) => JsonValue | Promise<JsonValue>;
  readonly calls?: EchoCall[];
}

export function echoTransportPlugin(options: EchoTransportOptions = {}): KernelPlugin {
  let sessions = 0;
  const transport: AgentTransport = {
    name: 'echo',
    async createSession(input) {
      const id = ++sessions;
      let turns = 0;
      const listeners = new Set<(progress: SessionProgress) => void>();
      let state: 'idle' | 'running' | 'disposed' = 'idle';
      let aborted = false;
      const abort = new AbortController();
      const session: WorkflowSession = {
        reference: { transport: 'echo', label: input.sessionLabel },
        state: () => state,
        // Cumulative like a real session: 10 input and 5 output tokens per turn.
        stats: () => ({ inputTokens: 10 * turns, outputTokens: 5 * turns, costUsd: 0.001 * turns, turns }),
        subscribe(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async prompt(text) {
          state = 'running';
          turns += 1;
          options.calls?.push({ prompt: text, model: input.model, label: input.sessionLabel, session: id, turn: turns });
          const answer = options.answer ?? ((prompt: string) => ({ result: `echo:${prompt}` }));
          const value = await answer(text, { tools: input.customTools ?? [], signal: abort.signal });
          if (aborted) throw new Error('aborted');
          for (const listener of listeners) listener({ type: 'result', value });
          state = 'idle';
        },
        async steer() {},
        async abort() {
          aborted = true;
          abort.abort();
        },
        async dispose() {
          state = 'disposed';
        },
      };
      return session;
    },
  };
  return {
    name: 'echo-transport',
    provides: { capabilities: [TRANSPORT_CAPABILITY] },
    apply: (kernel) => kernel.hooks.transport.select.tap('echo-transport', () => transport),
  };
}
