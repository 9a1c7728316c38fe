/**
 * The read-only context a registered function receives (spec 2
 * "WorkflowFunctionContext"). Every operation goes through the same journaled
 * dispatch as script calls, scoped to the function invocation.
 */
import { WorkflowError } from '../../errors.js';
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions, SendOptions } from '../../contracts/agent-options.js';
import type { AgentFunction, AgentHandle, CheckpointInput, ShellOptions, ShellResult, WorkflowFunctionContext, WorkflowRunContext, WorktreeRef } from '../../contracts/function-context.js';
import { checkBoundary } from '../../json-boundary.js';
import { renderPrompt, type PromptSyntax } from '../../template.js';
import { StructureRunner } from '../../structure.js';
import type { Scope } from '../keys.js';

export interface FunctionHost {
  readonly run: WorkflowRunContext;
  readonly settings: Readonly<Record<string, JsonValue>>;
  perform(op: string, site: string, scope: Scope, args: readonly JsonValue[]): Promise<JsonValue>;
  notify(op: string, site: string, scope: Scope, args: readonly JsonValue[]): void;
  invoke(name: string, input: JsonValue, scope: Scope, label?: string): Promise<JsonValue>;
  currentScope(base: Scope): Scope;
  runInScope<T>(scope: Scope, fn: () => T): T;
  hasPrimitive(name: string): boolean;
  /** The run's `prompt` template syntax (kernel/template.ts). */
  readonly promptSyntax: PromptSyntax;
}

const invalid = (message: string) => new WorkflowError('INVALID_METADATA', message);

function json(value: unknown): JsonValue {
  return (value === undefined ? null : value) as JsonValue;
}

/**
 * A function's calls reach the host without crossing the sandbox, so their
 * arguments are checked here as the sandbox checks a script's: JSON within
 * the boundary, strings well-formed.
 */
function checkedCalls(host: FunctionHost): Pick<FunctionHost, 'perform' | 'notify'> {
  return {
    perform: (op, site, scope, args) => {
      try {
        checkBoundary(args, `Arguments of ${op}`);
      } catch (error) {
        return Promise.reject(error);
      }
      return host.perform(op, site, scope, args);
    },
    notify: (op, site, scope, args) => {
      checkBoundary(args, `Arguments of ${op}`);
      host.notify(op, site, scope, args);
    },
  };
}

export function createFunctionContext(host: FunctionHost, base: Scope): WorkflowFunctionContext {
  const { perform, notify } = checkedCalls(host);
  const scope = () => host.currentScope(base);
  const structures = new StructureRunner({ current: scope, run: (inner, fn) => host.runInScope(inner, fn), fail: invalid });

  const agent = ((prompt: string, options?: AgentCallOptions) => perform('agent', 'context.agent', scope(), [prompt, json(options ?? {})])) as AgentFunction;
  agent.create = (options) => {
    const createScope = scope();
    if (typeof options?.name !== 'string' || options.name === '') throw invalid('agent.create needs options with a non-empty name');
    notify('agent.create', 'context.agent.create', createScope, [json(options)]);
    const handle: AgentHandle = {
      name: options.name,
      send: (prompt: string, sendOptions?: SendOptions) =>
        perform('agent.send', 'context.send', scope(), [{ name: options.name, scope: [...createScope] }, prompt, json(sendOptions ?? null)]),
    };
    return Object.freeze(handle);
  };

  const context: WorkflowFunctionContext = {
    run: host.run,
    settings: host.settings,
    agent: Object.freeze(agent),
    shell: async (command: string, options?: ShellOptions) =>
      (await perform('shell', 'context.shell', scope(), [command, json(options ?? null)])) as unknown as ShellResult,
    prompt: (template, values) => renderPrompt(template, values, invalid, host.promptSyntax),
    parallel: (name, tasks) => structures.parallel(name, tasks) as Promise<Record<string, JsonValue> | JsonValue[]>,
    pipeline: (name, items, stages) => structures.pipeline(name, items, stages) as Promise<Record<string, JsonValue> | JsonValue[]>,
    withWorktree: async (name, callback) => {
      if (!host.hasPrimitive('withWorktree')) throw invalid('withWorktree is not available: the worktrees plugin is not loaded');
      const inner = scope();
      const ref = (await perform('withWorktree', 'context.withWorktree', inner, [name])) as unknown as WorktreeRef;
      return host.runInScope([...inner, `withWorktree:${name}`], () => callback(Object.freeze({ ...ref })));
    },
    checkpoint: async (input: CheckpointInput) => {
      if (!host.hasPrimitive('checkpoint')) throw invalid('checkpoint is not available: the checkpoints plugin is not loaded');
      return (await perform('checkpoint', 'context.checkpoint', scope(), [json(input)])) === 'approved';
    },
    phase: (name) => notify('phase', 'context.phase', scope(), [name]),
    log: (message) => notify('log', 'context.log', scope(), [message]),
    invoke: (name, input, label) => {
      if (typeof name !== 'string' || /[./:]/.test(name)) {
        return Promise.reject(new WorkflowError('MISSING_WORKFLOW', `invoke takes an unqualified function name, not "${String(name)}"`, { name: String(name) }));
      }
      if (label !== undefined && (typeof label !== 'string' || label.trim() === '')) return Promise.reject(invalid('invoke label must be a non-empty string'));
      return host.invoke(name, input, scope(), label);
    },
  };
  return Object.freeze(context);
}
