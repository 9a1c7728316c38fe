/**
 * The globals a workflow script sees, built inside the sandbox process:
 * effects become `Calls`, `log`/`phase` are checked here (so their errors
 * are thrown into the script, where it can catch them) and sent in order,
 * `parallel`/`pipeline` open structural scopes, and the call-site marker,
 * which only the preflight's rewritten program can reach, names each call.
 */
import { renderPrompt, type PromptSyntax } from '../template.js';
import { StructureRunner } from '../structure.js';
import type { Calls } from './calls.js';
import { currentScope, runInScope } from './causality.js';
import type { GlobalSpec } from './protocol.js';
import { workflowError } from './script-errors.js';

declare const harden: <T>(value: T) => T;

/** `line:column` as the preflight writes it. */
const SITE_ID = /^[1-9]\d{0,8}:[1-9]\d{0,8}$/;

export interface ScriptGlobalsDeps {
  readonly calls: Calls;
  post(line: string): void;
  /** Call site id → callee, from the preflight. */
  readonly sites: Readonly<Record<string, string>>;
  readonly args: unknown;
  readonly globals: readonly GlobalSpec[];
  /** The run's `prompt` template syntax (kernel/template.ts). */
  readonly promptSyntax: PromptSyntax;
}

export interface ScriptGlobals {
  readonly globals: Record<string, unknown>;
  /** The marker the program receives as a parameter: `marker(site, args)` names the next call. */
  readonly marker: (site: unknown, args: unknown) => unknown;
}

export function buildScriptGlobals(deps: ScriptGlobalsDeps): ScriptGlobals {
  const { calls, post, sites } = deps;
  let pendingSite: string | undefined;

  const marker = (site: unknown, args: unknown): unknown => {
    if (typeof site !== 'string' || !SITE_ID.test(site) || !Object.hasOwn(sites, site) || !Array.isArray(args)) {
      throw workflowError('INVALID_METADATA', 'the call-site marker was called with a site the preflight did not write');
    }
    pendingSite = site;
    return args;
  };

  /** The site the marker announced for this call; the call must be the callee the preflight saw there. */
  const takeSite = (callee: string, siteCallee: string = callee): string => {
    const site = pendingSite;
    pendingSite = undefined;
    if (site === undefined || sites[site] !== siteCallee) throw workflowError('INVALID_METADATA', `${callee} must be called directly in the workflow source`);
    return site;
  };

  const notify = (op: string, site: string, args: readonly unknown[]): void => {
    const text = calls.encodeArgs(op, args);
    post(`{"t":"notify","op":${JSON.stringify(op)},"site":${JSON.stringify(site)},"scope":${JSON.stringify(currentScope())},"args":${text}}`);
  };

  const structures = new StructureRunner({
    current: currentScope,
    run: (scope, fn) => runInScope(harden([...scope]), fn),
    fail: (message) => workflowError('INVALID_METADATA', message),
  });

  const agentGlobal = (): unknown => {
    const agent = (...args: unknown[]) => calls.call('agent', takeSite('agent'), currentScope(), args);
    agent.create = (options: unknown) => {
      const site = takeSite('agent.create');
      const name = (options as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || name === '') throw workflowError('INVALID_METADATA', 'agent.create needs options with a non-empty name');
      const scope = currentScope();
      const handle = { name, scope, site };
      notify('agent.create', site, [options]);
      // One turn at a time, decided here in delivery order, so a refused send never gets a journal key.
      let busy = false;
      return harden({
        name,
        send: (...args: unknown[]) => {
          const sendSite = takeSite('send');
          if (busy) return Promise.reject(workflowError('INVALID_METADATA', `agent handle "${name}" is already running a turn; await each send`));
          const promise = calls.call('agent.send', sendSite, currentScope(), [handle, ...args], {
            keySite: `${sendSite}@${name}`,
            onSettled: () => void (busy = false),
          });
          busy = true;
          return promise;
        },
      });
    };
    return agent;
  };

  const namespaceGlobal = (name: string): unknown => {
    const member = (key: string) => (...args: unknown[]) => calls.call(`${name}.${key}`, takeSite(`${name}.${key}`), currentScope(), args);
    // A frozen, empty target: harden() and enumeration see nothing; only `in` is refused loudly.
    return new Proxy(Object.freeze({}), {
      get: (_target, key) => (typeof key === 'string' ? member(key) : undefined),
      has: () => {
        throw workflowError('INVALID_METADATA', `${name} cannot be probed with "in"; call ${name}.<name>(...) directly`);
      },
    });
  };

  const blocked = (name: string) => () => {
    throw new TypeError(`${name} is not available in workflow scripts`);
  };
  const globals: Record<string, unknown> = {
    eval: blocked('eval'),
    Function: blocked('Function'),
    Compartment: blocked('Compartment'),
    lockdown: blocked('lockdown'),
    harden: blocked('harden'),
    args: deps.args,
    // The site names a call that gives no name (`parallel([...])`).
    parallel: (...args: unknown[]) => structures.parallelAt(takeSite('parallel'), args),
    pipeline: (...args: unknown[]) => structures.pipelineAt(takeSite('pipeline'), args),
    prompt: (template: unknown, values?: unknown) => renderPrompt(template, values, (message) => workflowError('INVALID_METADATA', message), deps.promptSyntax),
  };
  for (const { name, kind } of deps.globals) {
    if (kind === 'effect') globals[name] = (...args: unknown[]) => calls.call(name, takeSite(name), currentScope(), args);
    else if (kind === 'function') globals[name] = (...args: unknown[]) => calls.call(name, takeSite(name), currentScope(), args, { isFunction: true });
    else if (kind === 'notify') globals[name] = (...args: unknown[]) => notifyGlobal(name, takeSite(name), args);
    else if (kind === 'namespace') globals[name] = namespaceGlobal(name);
    else if (kind === 'agent') globals[name] = agentGlobal();
    else {
      globals[name] = async (label: unknown, callback: unknown) => {
        const site = takeSite(name);
        if (typeof label !== 'string' || label === '' || typeof callback !== 'function') {
          throw workflowError('INVALID_METADATA', `${name} needs a non-empty name and a callback`);
        }
        const ref = await calls.call(name, site, currentScope(), [label]);
        return runInScope(harden([...currentScope(), `${name}:${label}`]), async () => (callback as (ref: unknown) => unknown)(harden(ref)));
      };
    }
  }

  /**
   * `log(message)` and `phase(name)` are checked here so the script can catch
   * their errors. Values after a log message join it as `console.log` would
   * show them (`log('Plan ready:', plan)`): strings as they are, others as JSON.
   */
  function notifyGlobal(name: string, site: string, args: readonly unknown[]): void {
    if (name === 'phase' && (typeof args[0] !== 'string' || args[0].trim() === '')) throw workflowError('INVALID_METADATA', 'phase needs a non-empty name');
    notify(name, site, name === 'log' ? [logLine(args)] : args);
  }

  return { globals, marker };
}

/**
 * The host keeps 4 KB of a log line (LOG_LIMIT_BYTES, engine/run-log.ts);
 * 4,096 UTF-16 units are never fewer bytes, so cutting here changes nothing
 * it keeps, and a huge line or value never meets the RPC limit on the way.
 */
const LOG_LINE_UNITS = 4096;

function logLine(args: readonly unknown[]): string {
  // As console.log: any values, strings as they are, the rest as JSON; no value is an empty line.
  const line = args.map(logPart).join(' ');
  if (line.length <= LOG_LINE_UNITS) return line;
  // Never half of a surrogate pair.
  const code = line.charCodeAt(LOG_LINE_UNITS - 1);
  return line.slice(0, code >= 0xd800 && code <= 0xdbff ? LOG_LINE_UNITS - 1 : LOG_LINE_UNITS);
}

/** One value of a log line: a string as it is, anything else as compact JSON (or what JSON cannot say, in words). */
function logPart(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return '[function]';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '[a value JSON cannot show]';
  }
}
