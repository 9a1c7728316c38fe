/**
 * Runs scripts in a real sandbox process with a recording host: the
 * sandbox suites' helpers. Scripts are compiled by the real preflight;
 * `raw` programs skip it (for checks the preflight would reject first).
 */
import type { JsonValue } from '../../kernel/json.js';
import { preflight, SITE_MARKER } from '../../kernel/preflight/index.js';
import type { CallOutcome, SandboxCall, SandboxHandlers, SandboxPool, ScriptExecution } from '../../kernel/sandbox/pool.js';
import type { GlobalSpec, ReplayEntry } from '../../kernel/sandbox/protocol.js';
import type { WorkflowError } from '../../kernel/errors.js';
import type { PromptSyntax } from '../../kernel/template.js';

export const SANDBOX_GLOBALS: GlobalSpec[] = [
  { name: 'agent', kind: 'agent' },
  { name: 'shell', kind: 'effect' },
  { name: 'phase', kind: 'notify' },
  { name: 'log', kind: 'notify' },
  { name: 'tools', kind: 'namespace' },
  { name: 'withWorktree', kind: 'scope' },
  { name: 'step', kind: 'function' },
];

export interface Compiled {
  readonly program: string;
  readonly sites: Readonly<Record<string, string>>;
}

export function compile(source: string): Compiled {
  const result = preflight(source, { primitives: ['agent', 'shell', 'phase', 'log', 'tools', 'withWorktree', 'prompt', 'parallel', 'pipeline', 'args'], functions: ['step'], effects: ['withWorktree'] });
  return { program: result.program, sites: Object.fromEntries(Object.values(result.sites).map((site) => [site.id, site.callee])) };
}

export function raw(program: string): Compiled {
  return { program, sites: {} };
}

export interface Recorder {
  readonly calls: SandboxCall[];
  readonly notes: Omit<SandboxCall, 'key'>[];
  readonly replayed: (SandboxCall & { failed: boolean })[];
  readonly handlers: SandboxHandlers;
}

/** A host that answers every call with `reply(call)` (its JSON), or its error. */
export function recorder(reply: (call: SandboxCall) => unknown = () => null, seqOf?: (call: SandboxCall) => number | undefined): Recorder {
  const calls: SandboxCall[] = [];
  const notes: Omit<SandboxCall, 'key'>[] = [];
  const replayed: (SandboxCall & { failed: boolean })[] = [];
  const handlers: SandboxHandlers = {
    call: async (call): Promise<CallOutcome> => {
      calls.push(call);
      const seq = seqOf?.(call);
      try {
        const value = JSON.stringify((await reply(call)) ?? null);
        return { ok: true, value, ...(seq === undefined ? {} : { seq }) };
      } catch (error) {
        const { code, message, details } = error as WorkflowError;
        return { ok: false, error: { message, ...(code ? { code } : {}), ...(details ? { details } : {}) }, ...(seq === undefined ? {} : { seq }) };
      }
    },
    replayed: (call) => void replayed.push(call),
    notify: (call) => void notes.push(call),
  };
  return { calls, notes, replayed, handlers };
}

export interface StartOptions {
  readonly args?: JsonValue;
  readonly replay?: readonly ReplayEntry[];
  readonly promptSyntax?: PromptSyntax;
}

export function start(pool: SandboxPool, script: Compiled, handlers: SandboxHandlers, options: StartOptions = {}): ScriptExecution {
  return pool.run(
    { ...script, marker: SITE_MARKER, args: options.args ?? null, globals: SANDBOX_GLOBALS, replay: options.replay ?? [], ...(options.promptSyntax ? { promptSyntax: options.promptSyntax } : {}) },
    handlers,
  );
}

export function run(pool: SandboxPool, script: Compiled, handlers: SandboxHandlers, options: StartOptions = {}): Promise<JsonValue> {
  return start(pool, script, handlers, options).result;
}

export async function failure(
  pool: SandboxPool,
  script: Compiled,
  handlers: SandboxHandlers = recorder().handlers,
  options: { args?: JsonValue; replay?: readonly ReplayEntry[] } = {},
): Promise<WorkflowError> {
  return run(pool, script, handlers, options).then(
    (value) => {
      throw new Error(`expected the script to fail, it returned ${JSON.stringify(value)}`);
    },
    (error: unknown) => error as WorkflowError,
  );
}
