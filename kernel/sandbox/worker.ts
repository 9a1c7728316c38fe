/**
 * The sandbox side: runs inside a worker thread, locks the worker's realm down
 * with ses, and evaluates one workflow program in a hardened Compartment.
 * Structural scope (parallel and pipeline branches, scopes) is tracked here with
 * AsyncLocalStorage; every effect goes to the host as a JSON-string RPC.
 *
 * From source (tests) Node runs this file with type stripping; worker-path.ts
 * then maps its relative `.js` imports to the `.ts` files.
 */
import 'ses';
import { AsyncLocalStorage } from 'node:async_hooks';
import { parentPort } from 'node:worker_threads';
import type { CallMessage, ErrorPayload, GlobalSpec, HostMessage, ReplayEntry, StartMessage, WorkerMessage } from './protocol.js';
import { renderPrompt } from '../template.js';
import { StructureRunner } from '../structure.js';

declare const lockdown: (options?: Record<string, string>) => void;
declare const harden: <T>(value: T) => T;
declare class Compartment {
  constructor(options: { globals: Record<string, unknown>; __options__: true });
  readonly globalThis: Record<string, unknown>;
  evaluate(source: string): unknown;
}

const port = parentPort;
if (!port) throw new Error('the sandbox worker must run in a worker thread');

lockdown({ errorTaming: 'safe', overrideTaming: 'severe', consoleTaming: 'safe', stackFiltering: 'concise' });

type Scope = readonly string[];
const scopes = new AsyncLocalStorage<Scope>();
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
let nextId = 1;
let pendingSite: string | undefined;
let settled = false;
let maxValueBytes = 10 * 1024 * 1024;
let stallCheck = false;

function post(message: WorkerMessage): void {
  port!.postMessage(JSON.stringify(message));
}

function workflowError(code: string, message: string, details?: Record<string, unknown>): Error {
  const error = new Error(message) as Error & { code: string; details?: Record<string, unknown> };
  error.name = 'WorkflowError';
  error.code = code;
  if (details) error.details = details;
  return error;
}

function serialize(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw workflowError('INVALID_METADATA', `${what} must be JSON: ${(error as Error).message}`);
  }
  text ??= 'null';
  if (Buffer.byteLength(text) > maxValueBytes) {
    throw workflowError('RPC_LIMIT_EXCEEDED', `${what} exceeds the ${maxValueBytes}-byte RPC limit`, { limit: maxValueBytes });
  }
  return text;
}

function takeSite(name: string): string {
  const site = pendingSite;
  pendingSite = undefined;
  if (site === undefined) throw workflowError('INVALID_METADATA', `${name} must be called directly in the workflow source`);
  return site;
}

function currentScope(): Scope {
  return scopes.getStore() ?? [];
}

/** The script can only wait on host replies, so no pending reply and no settled result means it never settles. */
function scheduleStallCheck(): void {
  if (stallCheck) return;
  stallCheck = true;
  setImmediate(() => {
    stallCheck = false;
    if (!settled && pending.size === 0) {
      settled = true;
      post({ t: 'stalled' });
    }
  });
}

/**
 * Completed operations this segment may answer without a round trip. The
 * keys are computed exactly as the host computes journal keys
 * (kernel/engine/keys.ts, invocations.ts): structural scope, call site (a
 * function's `fn:<name>#<n>` segment), occurrence per slot, counted in call
 * order on both sides. The host checks every key it is told about, so a
 * divergence fails the run instead of returning a wrong value.
 */
let replayTable: Readonly<Record<string, ReplayEntry>> = {};
const occurrences = new Map<string, number>();
const invocations = new Map<string, number>();

function journalKey(op: string, keySite: string, scope: Scope, isFunction: boolean): string {
  const scopeKey = scope.join('/');
  let slotSite = keySite;
  if (isFunction) {
    const counter = `${scopeKey}|${op}`;
    const count = (invocations.get(counter) ?? 0) + 1;
    invocations.set(counter, count);
    slotSite = count === 1 ? `fn:${op}` : `fn:${op}#${count}`;
  }
  const slot = `${scopeKey}|${slotSite}`;
  const occurrence = occurrences.get(slot) ?? 0;
  occurrences.set(slot, occurrence + 1);
  return `${slot}#${occurrence}`;
}

interface CallKey {
  /** The site the host keys the call by (a handle send's is `<site>@<handle>`). */
  readonly keySite?: string;
  readonly isFunction?: boolean;
}

function call(op: string, site: string, args: readonly unknown[], keyed: CallKey = {}): Promise<unknown> {
  const scope = currentScope();
  const text = serialize(args, `Arguments of ${op}`);
  const key = journalKey(op, keyed.keySite ?? site, scope, keyed.isFunction ?? false);
  const hit = replayTable[key];
  if (hit && (hit.op === op || (hit.op === 'agent' && op === 'agent.send'))) {
    post({ t: 'replayed', key, op, site, scope, args: text });
    return Promise.resolve(JSON.parse(hit.value) as unknown);
  }
  const message: CallMessage = { t: 'call', id: nextId++, op, site, scope, args: text };
  const result = new Promise((resolve, reject) => pending.set(message.id, { resolve, reject }));
  post(message);
  return result;
}

function notify(op: string, site: string, args: readonly unknown[]): void {
  post({ t: 'notify', id: nextId++, op, site, scope: currentScope(), args: serialize(args, `Arguments of ${op}`) });
}

function inScope<T>(segment: string, fn: () => T): T {
  return scopes.run(harden([...currentScope(), segment]), fn);
}

const structures = new StructureRunner({
  current: currentScope,
  run: (scope, fn) => scopes.run(harden([...scope]), fn),
  fail: (message) => workflowError('INVALID_METADATA', message),
});
const parallel = (name: unknown, tasks: unknown) => structures.parallel(name, tasks);
const pipeline = (name: unknown, items: unknown, stages: unknown) => structures.pipeline(name, items, stages);

function prompt(template: unknown, values?: unknown): string {
  return renderPrompt(template, values, (message) => workflowError('INVALID_METADATA', message));
}

function agentGlobal(): unknown {
  const agent = (...args: unknown[]) => call('agent', takeSite('agent'), args);
  agent.create = (options: unknown) => {
    const site = takeSite('agent.create');
    const name = (options as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name === '') throw workflowError('INVALID_METADATA', 'agent.create needs options with a non-empty name');
    const handle = { name, scope: currentScope(), site };
    notify('agent.create', site, [options]);
    return harden({
      name,
      send: (...args: unknown[]) => {
        const site = takeSite('send');
        return call('agent.send', site, [handle, ...args], { keySite: `${site}@${name}` });
      },
    });
  };
  return agent;
}

function namespaceGlobal(name: string): unknown {
  const member = (key: string) => (...args: unknown[]) => call(`${name}.${key}`, takeSite(`${name}.${key}`), args);
  // A frozen, empty target: harden() and enumeration see nothing; only `in` is refused loudly.
  return new Proxy(Object.freeze({}), {
    get: (_target, key) => (typeof key === 'string' ? member(key) : undefined),
    has: () => {
      throw workflowError('INVALID_METADATA', `${name} cannot be probed with "in"; call ${name}.<name>(...) directly`);
    },
  });
}

function buildGlobals(start: StartMessage): Record<string, unknown> {
  const blocked = (name: string) => () => {
    throw new TypeError(`${name} is not available in workflow scripts`);
  };
  const globals: Record<string, unknown> = {
    eval: blocked('eval'),
    Function: blocked('Function'),
    Compartment: blocked('Compartment'),
    lockdown: blocked('lockdown'),
    harden: blocked('harden'),
    args: JSON.parse(start.args) as unknown,
    parallel,
    pipeline,
    prompt,
    [start.siteGlobal]: (site: string, args: unknown[]) => {
      pendingSite = site;
      return args;
    },
  };
  for (const spec of start.globals as GlobalSpec[]) {
    const { name } = spec;
    if (spec.kind === 'effect') globals[name] = (...args: unknown[]) => call(name, takeSite(name), args);
    else if (spec.kind === 'function') globals[name] = (...args: unknown[]) => call(name, takeSite(name), args, { isFunction: true });
    else if (spec.kind === 'notify') globals[name] = (...args: unknown[]) => notify(name, takeSite(name), args);
    else if (spec.kind === 'namespace') globals[name] = namespaceGlobal(name);
    else if (spec.kind === 'agent') globals[name] = agentGlobal();
    else {
      globals[name] = async (label: unknown, callback: unknown) => {
        const site = takeSite(name);
        if (typeof label !== 'string' || label === '' || typeof callback !== 'function') {
          throw workflowError('INVALID_METADATA', `${name} needs a non-empty name and a callback`);
        }
        const ref = await call(name, site, [label]);
        return inScope(`${name}:${label}`, async () => (callback as (ref: unknown) => unknown)(harden(ref)));
      };
    }
  }
  return globals;
}

function errorPayload(error: unknown): ErrorPayload {
  if (error instanceof Error) {
    const { code, details } = error as Error & { code?: unknown; details?: unknown };
    const payload: { code?: string; message: string; details?: Record<string, unknown> } = {
      message: error.name === 'WorkflowError' || typeof code === 'string' ? error.message : `${error.name}: ${error.message}`,
    };
    if (typeof code === 'string') payload.code = code;
    if (details && typeof details === 'object') payload.details = details as Record<string, unknown>;
    return payload;
  }
  return { message: `Workflow script threw a non-error value: ${String(error)}` };
}

function start(message: StartMessage): void {
  maxValueBytes = message.maxValueBytes;
  replayTable = message.replay;
  let completion: Promise<unknown>;
  try {
    const globals = buildGlobals(message);
    const compartment = new Compartment({ globals: harden(globals), __options__: true });
    harden(compartment.globalThis);
    completion = Promise.resolve(scopes.run(harden([]), () => compartment.evaluate(message.program)));
  } catch (error) {
    completion = Promise.reject(error);
  }
  completion.then(
    (value) => {
      if (settled) return;
      settled = true;
      try {
        post({ t: 'done', value: serialize(value === undefined ? null : value, 'The workflow result') });
      } catch (error) {
        post({ t: 'failed', error: errorPayload(error) });
      }
    },
    (error: unknown) => {
      if (settled) return;
      settled = true;
      post({ t: 'failed', error: errorPayload(error) });
    },
  );
  scheduleStallCheck();
}

port.on('message', (raw: string) => {
  const message = JSON.parse(raw) as HostMessage;
  if (message.t === 'ping') return post({ t: 'pong' });
  if (message.t === 'start') return start(message);
  const waiter = pending.get(message.id);
  if (!waiter) return;
  pending.delete(message.id);
  if (message.ok) waiter.resolve(JSON.parse(message.value ?? 'null'));
  else {
    const error = message.error ?? { message: 'unknown host error' };
    waiter.reject(workflowError(error.code ?? 'INTERNAL_ERROR', error.message, error.details as Record<string, unknown> | undefined));
  }
  // Only a script with nothing left in flight can be stuck; checking after every reply costs a macrotask each.
  if (pending.size === 0) scheduleStallCheck();
});

post({ t: 'ready' });
