/**
 * Named agent handles (`agent.create`, `handle.send`): one handle per name in
 * a scope, one turn at a time, sends only from the scope that created it.
 */
import { WorkflowError } from '../../errors.js';
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions } from '../../contracts/agent-options.js';
import { scopeKey, type Scope } from '../keys.js';
import { parseAgentArgs } from './agent-options.js';

const SEND_OPTIONS = new Set(['outputSchema', 'timeoutMs']);
/** Names the runtime keeps for handles of its own (spec 2 "WorkflowFunctionContext"). */
export const RESERVED_HANDLE_PREFIX = 'function-handle/';

interface HandleState {
  readonly name: string;
  readonly scope: Scope;
  readonly options: AgentCallOptions;
  readonly error?: WorkflowError;
  busy: boolean;
  turns: number;
}

export interface HandleTurn {
  readonly prompt: string;
  readonly options: AgentCallOptions;
  readonly name: string;
  readonly turn: number;
  /** Where the handle's frozen configuration is stored: one per handle, for every turn. */
  readonly configKey: string;
  /** The turn ended; the next send may start. */
  done(): void;
}

export class AgentHandles {
  readonly #handles = new Map<string, HandleState>();

  /** `agent.create` arrives as a notification: a bad handle fails at its first send. */
  create(scope: Scope, args: readonly JsonValue[]): void {
    const options = (args[0] ?? {}) as AgentCallOptions & { name?: unknown };
    const name = String(options.name);
    const id = `${scopeKey(scope)}|${name}`;
    const { name: _name, ...rest } = options;
    let error: WorkflowError | undefined;
    if (name.startsWith(RESERVED_HANDLE_PREFIX)) error = new WorkflowError('INVALID_METADATA', `agent handle names starting with "${RESERVED_HANDLE_PREFIX}" are reserved`);
    else if (this.#handles.has(id)) error = new WorkflowError('INVALID_METADATA', `agent handle "${name}" is created twice in one scope`);
    else {
      try {
        parseAgentArgs(['-', rest], 'agent.create');
      } catch (invalid) {
        error = invalid as WorkflowError;
      }
    }
    const existing = this.#handles.get(id);
    if (existing && !error) return;
    this.#handles.set(id, { name, scope, options: rest as AgentCallOptions, ...(error ? { error } : {}), busy: false, turns: existing?.turns ?? 0 });
  }

  /** Checks a send and starts its turn. */
  begin(scope: Scope, args: readonly JsonValue[]): HandleTurn {
    const [descriptor, prompt, sendOptions] = args as [{ name: string; scope: string[] }, JsonValue, JsonValue];
    const handle = this.#handles.get(`${scopeKey(descriptor.scope)}|${descriptor.name}`);
    if (!handle) throw new WorkflowError('INVALID_METADATA', `agent handle "${descriptor.name}" does not exist`);
    if (handle.error) throw handle.error;
    if (scopeKey(scope) !== scopeKey(handle.scope)) {
      throw new WorkflowError('INVALID_METADATA', `agent handle "${handle.name}" must be sent to from the scope that created it, not from another parallel/pipeline branch or worktree`);
    }
    if (handle.busy) throw new WorkflowError('INVALID_METADATA', `agent handle "${handle.name}" is already running a turn; await each send`);
    if (sendOptions !== undefined && sendOptions !== null) {
      if (typeof sendOptions !== 'object' || Array.isArray(sendOptions)) throw new WorkflowError('INVALID_METADATA', 'send options must be an object');
      const extra = Object.keys(sendOptions).find((key) => !SEND_OPTIONS.has(key));
      if (extra) throw new WorkflowError('INVALID_METADATA', `send accepts only outputSchema and timeoutMs, not "${extra}"`);
    }
    const { prompt: text, options } = parseAgentArgs([prompt, { ...handle.options, ...((sendOptions ?? {}) as object) }], 'send');
    handle.busy = true;
    handle.turns += 1;
    return {
      prompt: text,
      options,
      name: handle.name,
      turn: handle.turns,
      configKey: `${scopeKey(handle.scope)}|handle:${handle.name}`,
      done: () => void (handle.busy = false),
    };
  }
}
