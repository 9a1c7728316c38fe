/**
 * Every effect the script calls, on the sandbox side: its journal key, the
 * race rule, and where its result comes from (the journal or the host).
 *
 * Keys are computed exactly as the host's journal keys (structural scope,
 * call site, occurrence per slot; a registered function's `fn:<name>#<n>`)
 * and sent with each call: the host keys the call by them.
 *
 * Results reach the script through `Deliveries`, one per macrotask, in the
 * order the host journaled them (`seq`). On a resumed run the journal's
 * results are delivered in that same order, so the script sees the events of
 * the original run in the original order and computes the same keys, values
 * and decisions; calls the journal does not know are held back until every
 * journaled result was delivered (they came after them in the original run).
 */
import { encodeJson } from '../json-encode.js';
import { currentFrontier, type Frontier } from './causality.js';
import { Deliveries, type Outcome, type Waiter } from './deliveries.js';
import type { ErrorPayload, ReplayEntry, ReplyMessage } from './protocol.js';
import { boundaryError, workflowError, type ScriptError } from './script-errors.js';

export type Scope = readonly string[];

export interface CallOptions {
  /** The site the journal keys the call by (a handle send's is `<site>@<handle>`). */
  readonly keySite?: string;
  readonly isFunction?: boolean;
  /** Runs when the call's result was delivered (a handle's next turn may start). */
  readonly onSettled?: () => void;
}

export interface CallsDeps {
  /** Sends one message line (JSON text) to the host now. */
  post(line: string): void;
  /** Queues a line the host only books (it goes out in order, soon). */
  queue(line: string): void;
  /** Ends the script at once with this error (a broken rule or a diverged replay): the run fails. */
  fatal(error: ScriptError): never;
  readonly maxValueBytes: number;
  readonly replay: readonly ReplayEntry[];
}

/** The newest call of one slot and, once delivered, its delivery mark. */
interface SlotState {
  readonly site: string;
  delivered: number | undefined;
}

/** A call as it crosses: its fields, and its arguments as the JSON text of an array. */
interface Call {
  readonly op: string;
  readonly site: string;
  readonly scope: Scope;
  readonly key: string;
  readonly args: string;
}

function preview(op: string, argsText: string): string {
  const text = `${op}(${argsText.slice(1, -1)})`;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** One message line; the arguments' JSON text is embedded as it is (encoded once, here). */
function callLine(t: 'call' | 'replayed', call: Call, extra: string): string {
  return `{"t":"${t}"${extra},"op":${JSON.stringify(call.op)},"site":${JSON.stringify(call.site)},"scope":${JSON.stringify(call.scope)},"key":${JSON.stringify(call.key)},"args":${call.args}}`;
}

export class Calls {
  readonly #deps: CallsDeps;
  readonly #deliveries: Deliveries;
  readonly #entries = new Map<string, ReplayEntry>();
  readonly #occurrences = new Map<string, number>();
  readonly #invocations = new Map<string, number>();
  readonly #slots = new Map<string, SlotState>();
  readonly #byId = new Map<number, Waiter>();
  #nextId = 1;

  constructor(deps: CallsDeps, onIdle: (state: { replaying: boolean; waiting: number; missing?: ReplayEntry }) => void) {
    this.#deps = deps;
    let lastSeq = -1;
    for (const entry of deps.replay) {
      this.#entries.set(entry.key, entry);
      if (entry.seq !== undefined) lastSeq = Math.max(lastSeq, entry.seq);
    }
    const ordered = deps.replay.filter((entry) => entry.seq !== undefined);
    this.#deliveries = new Deliveries(ordered, lastSeq, {
      release: (message) => deps.post(message),
      idle: onIdle,
    });
  }

  /** Checks the script's progress once everything it can do now is done. */
  schedule(): void {
    this.#deliveries.schedule();
  }

  stop(): void {
    this.#deliveries.stop();
  }

  /** The JSON text of an argument list (trailing `undefined`s are omitted arguments); throws the script's error otherwise. */
  encodeArgs(op: string, args: readonly unknown[]): string {
    let end = args.length;
    while (end > 0 && args[end - 1] === undefined) end -= 1;
    const encoded = encodeJson(end === args.length ? args : args.slice(0, end), { maxBytes: this.#deps.maxValueBytes, wellFormed: true });
    if (!encoded.ok) throw boundaryError(`Arguments of ${op}`, encoded.failure);
    return encoded.text;
  }

  #journalKey(op: string, keySite: string, scopeKey: string, isFunction: boolean): string {
    let slotSite = keySite;
    if (isFunction) {
      const counter = `${scopeKey}|${op}`;
      const count = (this.#invocations.get(counter) ?? 0) + 1;
      this.#invocations.set(counter, count);
      slotSite = count === 1 ? `fn:${op}` : `fn:${op}#${count}`;
    }
    const slot = `${scopeKey}|${slotSite}`;
    const occurrence = this.#occurrences.get(slot) ?? 0;
    this.#occurrences.set(slot, occurrence + 1);
    return `${slot}#${occurrence}`;
  }

  /**
   * The race rule: the previous call of this slot must have been delivered,
   * and delivered causally before this call (see causality.ts).
   */
  #checkRace(slot: string, site: string, op: string, scope: Scope, frontier: Frontier): void {
    const previous = this.#slots.get(slot);
    if (previous === undefined) return;
    const pending = previous.delivered === undefined;
    if (!pending && frontier.get(slot) === previous.delivered) return;
    const why = pending
      ? 'was called again while its previous call is still running'
      : "was called again, but not after its previous call's result (the two calls race: their order depends on which operation finishes first)";
    this.#deps.fatal(
      workflowError('INVALID_METADATA', `${op} at ${site} ${why}; calls from one call site must not race: await each call, or use parallel or pipeline for concurrent calls`, {
        reason: 'racing_calls',
        site,
        scope: [...scope],
      }),
    );
  }

  /** Starts one effect; its promise settles when its result is delivered. */
  call(op: string, site: string, scope: Scope, rawArgs: readonly unknown[], options: CallOptions = {}): Promise<unknown> {
    const args = this.encodeArgs(op, rawArgs);
    const keySite = options.keySite ?? site;
    const scopeKey = scope.join('/');
    const slot = `${scopeKey}|${options.isFunction ? site : keySite}`;
    const frontier = currentFrontier();
    this.#checkRace(slot, site, op, scope, frontier);
    const key = this.#journalKey(op, keySite, scopeKey, options.isFunction ?? false);
    const state: SlotState = { site, delivered: undefined };
    this.#slots.set(slot, state);
    let waiter!: Waiter;
    const promise = new Promise<unknown>((resolve, reject) => {
      waiter = { slot, frontier, resolve, reject, settled: (mark) => {
        state.delivered = mark;
        options.onSettled?.();
      } };
    });
    const entry = this.#entries.get(key);
    if (entry !== undefined) this.#replay(entry, waiter, { op, site, scope, key, args });
    else {
      const id = this.#nextId++;
      this.#byId.set(id, waiter);
      this.#deliveries.live(callLine('call', { op, site, scope, key, args }, `,"id":${id}`));
    }
    this.#deliveries.schedule();
    return promise;
  }

  #replay(entry: ReplayEntry, waiter: Waiter, call: Call): void {
    this.#entries.delete(entry.key);
    if (entry.op !== call.op && !(entry.op === 'agent' && call.op === 'agent.send')) {
      this.#deps.fatal(nondeterministic(entry, call, `the journal has ${entry.call ?? entry.op} there, but the script now calls ${preview(call.op, call.args)}`));
    }
    const outcome: Outcome | undefined = entry.host ? undefined : entry.ok ? { ok: true, value: entry.value ?? null } : { ok: false, error: entry.error ?? { message: 'failed' } };
    if (entry.host) {
      const id = this.#nextId++;
      this.#byId.set(id, waiter);
      this.#deps.post(callLine('call', call, `,"id":${id}`));
    } else {
      this.#deps.queue(callLine('replayed', call, entry.ok ? '' : ',"failed":true'));
    }
    this.#deliveries.replayed(entry, waiter, outcome);
  }

  /** A reply of the host to a call. */
  reply(message: ReplyMessage): void {
    const waiter = this.#byId.get(message.id);
    if (waiter === undefined) return;
    this.#byId.delete(message.id);
    const outcome: Outcome = message.ok ? { ok: true, value: message.value ?? null } : { ok: false, error: message.error ?? { message: 'unknown host error' } };
    this.#deliveries.arrived(waiter, outcome, message.seq);
  }
}

export function nondeterministic(entry: ReplayEntry, call: { readonly key: string; readonly site: string; readonly op: string; readonly args?: string }, what: string): ScriptError {
  return workflowError('RESUME_INCOMPATIBLE', `The script no longer replays its journal: at ${call.site} (journal key ${entry.key}) ${what}. Relaunch instead.`, {
    reason: 'nondeterministic_replay',
    site: call.site,
    key: entry.key,
    journaled: entry.call ?? entry.op,
    ...(call.args === undefined ? {} : { now: preview(call.op, call.args) }),
  });
}

export function errorOf(payload: ErrorPayload): ScriptError {
  return workflowError(payload.code ?? 'INTERNAL_ERROR', payload.message, payload.details as Record<string, unknown> | undefined);
}
