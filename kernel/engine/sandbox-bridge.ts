/**
 * The execution's side of the sandbox protocol: calls the sandbox makes
 * (keyed by the sandbox, whose keys the host checks and uses), the calls it
 * answered from the journal (checked against the journal before anything
 * later can happen), and the failures it received (journaled with their
 * delivery position, so a resumed script receives them at the same point).
 */
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import { encodeJson } from '../json-encode.js';
import { isStoreFault } from '../store/index.js';
import type { Locate } from '../sandbox/script-failure.js';
import type { JsonValue } from '../json.js';
import type { CallOutcome, SandboxCall, SandboxHandlers } from '../sandbox/pool.js';
import type { ErrorPayload } from '../sandbox/protocol.js';
import { callDigest, callPreview } from './call-digest.js';
import { JOURNAL_VERSION, type FailureRecord, type JournalRecord } from './journal-record.js';
import type { Scope } from './keys.js';
import type { Delivered, Incoming } from './steps.js';

/** A call that came from the sandbox: its key, and whether the sandbox answered it from the journal. */

export interface BridgeHost {
  readonly replay: ReadonlyMap<string, JournalRecord>;
  readonly maxValueBytes: number;
  /** The segment is ending: nothing more is journaled. */
  ending(): boolean;
  perform(op: string, site: string, scope: Scope, args: readonly JsonValue[], incoming: Incoming): Promise<JsonValue>;
  notify(op: string, site: string, scope: Scope, args: readonly JsonValue[]): void;
  append(record: JournalRecord): void;
  takeSeq(): number;
  /** The delivery position and JSON text of a result `#step` produced for this key, and its pending journal write. */
  takeDelivered(key: string): Delivered | undefined;
  fail(error: unknown): void;
  /** A store fault (a full disk, a damaged entry): halts the segment; never journaled as the script's failure. */
  fault(error: unknown): void;
}

/** Failures that are not the script's to see again on resume: the run was ending, or a budget blocked the call. */
const NOT_REPLAYED = new Set(['CANCELLED', 'BUDGET_EXHAUSTED']);

function payload(error: unknown): ErrorPayload & { code: string } {
  if (isWorkflowError(error)) return error.toJSON();
  return { code: 'INTERNAL_ERROR', message: messageOf(error) };
}

/** Details as stored: plain JSON or nothing. */
function storedDetails(details: unknown): Readonly<Record<string, JsonValue>> | undefined {
  if (details === undefined) return undefined;
  const encoded = encodeJson(details, { maxBytes: 64 * 1024 });
  return encoded.ok ? (JSON.parse(encoded.text) as Record<string, JsonValue>) : undefined;
}

/** After `fn:<name>`: nothing (the first invocation in a scope) or `#<n>`, n ≥ 2. */
const INVOCATION_SUFFIX = /^(?:#[1-9]\d*)?$/;
const OCCURRENCE = /^\d+$/;

/** Whether a key's slot site may name a call of `op` made at `site`. */
function slotSiteFits(slotSite: string, op: string, site: string): boolean {
  if (slotSite === site) return true;
  if (op === 'agent.send' && slotSite.startsWith(`${site}@`)) return true;
  const prefix = `fn:${op}`;
  return slotSite.startsWith(prefix) && INVOCATION_SUFFIX.test(slotSite.slice(prefix.length));
}

export function sandboxHandlers(host: BridgeHost): SandboxHandlers {
  const used = new Set<string>();

  /** The sandbox keys its calls; the key must name the call's own scope and site, once. */
  const checkKey = (call: SandboxCall): void => {
    const scopeKey = call.scope.join('/');
    const hash = call.key.lastIndexOf('#');
    const fits =
      hash > scopeKey.length &&
      call.key.startsWith(scopeKey) &&
      call.key.charCodeAt(scopeKey.length) === 0x7c /* | */ &&
      OCCURRENCE.test(call.key.slice(hash + 1)) &&
      slotSiteFits(call.key.slice(scopeKey.length + 1, hash), call.op, call.site);
    if (!fits || used.has(call.key)) {
      throw new WorkflowError('INTERNAL_ERROR', `The sandbox keyed a ${call.op} call at ${call.site} as ${call.key}, which the host cannot accept`, { reason: 'sandbox_error', key: call.key });
    }
    used.add(call.key);
  };

  const failureRecord = (call: SandboxCall, error: ErrorPayload & { code: string }, seq: number): FailureRecord => {
    const identity = { op: call.op, args: call.args };
    const details = storedDetails(error.details);
    return {
      v: JOURNAL_VERSION,
      key: call.key,
      at: new Date().toISOString(),
      kind: 'failure',
      op: call.op,
      digest: callDigest(identity),
      call: callPreview(identity),
      seq,
      error: { code: error.code, message: error.message, ...(details === undefined ? {} : { details }) },
    };
  };

  return {
    async call(call): Promise<CallOutcome> {
      checkKey(call);
      const replayed = host.replay.has(call.key);
      try {
        const value = await host.perform(call.op, call.site, call.scope, call.args, { key: call.key, replayed: false });
        const delivered = host.takeDelivered(call.key);
        if (delivered) return { ok: true, value: delivered.text, seq: delivered.seq, ...(delivered.commit ? { commit: delivered.commit } : {}) };
        // Answered from the journal by the host: no new record, no new position.
        const encoded = encodeJson(value, { maxBytes: host.maxValueBytes });
        if (!encoded.ok) return { ok: false, error: { code: encoded.failure.code, message: `The replayed value of ${call.op} ${encoded.failure.reason}` } };
        return { ok: true, value: encoded.text };
      } catch (error) {
        const failure = payload(error);
        if (isStoreFault(error)) {
          host.fault(error);
          return { ok: false, error: failure };
        }
        const delivered = host.takeDelivered(call.key);
        // A result produced for this key and then failed on its way: journaled first, then its failure at its position.
        try {
          delivered?.commit?.();
        } catch {
          // the failure below still takes the position
        }
        if (replayed || host.ending() || NOT_REPLAYED.has(failure.code)) {
          return { ok: false, error: failure, ...(delivered ? { seq: delivered.seq } : {}) };
        }
        // Journaled with its position (after a result already journaled for this key, at that result's position: the later record wins).
        const seq = delivered?.seq ?? host.takeSeq();
        try {
          host.append(failureRecord(call, failure, seq));
        } catch {
          // the position is still delivered; a replay skips what the journal lacks
        }
        return { ok: false, error: failure, seq };
      }
    },

    replayed(call) {
      checkKey(call);
      const past = host.replay.get(call.key);
      if (past === undefined || past.kind === 'log' || (past.kind === 'failure') !== call.failed) {
        throw new WorkflowError('INTERNAL_ERROR', `The sandbox answered ${call.op} at ${call.site} from journal key ${call.key}, which the journal does not hold`, {
          reason: 'sandbox_error',
          key: call.key,
        });
      }
      const booked = host.perform(call.op, call.site, call.scope, call.args, { key: call.key, replayed: true });
      // A journaled failure is expected to fail again on the host; a result must be booked.
      booked.then(undefined, (error: unknown) => {
        if (!call.failed) host.fail(error);
      });
    },

    notify(call) {
      host.notify(call.op, call.site, call.scope, call.args);
    },
  };
}

/** What the sandbox evaluates: the preflight's program and its call sites (id → callee), and what the host needs to explain it. */
export interface SandboxProgram {
  readonly program: string;
  readonly sites: Readonly<Record<string, string>>;
  /** Program positions → the script's (a script error's line and column). */
  readonly locate?: Locate;
  /** Agent option names written in literals → their sites: the launch warned about those already. */
  readonly agentOptionKeys?: Readonly<Record<string, readonly string[]>>;
}

export function sandboxProgram(compiled: {
  readonly program: string;
  readonly sites: Readonly<Record<string, { readonly id: string; readonly callee: string }>>;
  readonly locate?: Locate;
  readonly agentOptionKeys?: Readonly<Record<string, readonly string[]>>;
}): SandboxProgram {
  return {
    program: compiled.program,
    sites: Object.fromEntries(Object.values(compiled.sites).map((site) => [site.id, site.callee])),
    ...(compiled.locate === undefined ? {} : { locate: compiled.locate }),
    ...(compiled.agentOptionKeys === undefined ? {} : { agentOptionKeys: compiled.agentOptionKeys }),
  };
}
