/**
 * Journaled steps: every operation of a segment runs through `step`, which
 * replays it when the journal has it (after checking that the journal
 * recorded this very call) or performs it and journals the result once.
 *
 * `perform` of the execution names the call it dispatches (`dispatching`):
 * its identity (op and arguments, for the digest) and, for the sandbox's
 * calls, the key the sandbox gave it. The dispatch reaches `step`
 * synchronously, so the part before an operation runs is synchronous too: a
 * divergence found while booking a sandbox replay fails the run before the
 * host reads the sandbox's next message.
 */
import { WorkflowError } from '../errors.js';
import { encodeJson } from '../json-encode.js';
import type { JsonValue } from '../json.js';
import { isStoreFault, type Journal } from '../store/index.js';
import { callDigest, callPreview, nondeterministicReplay, type CallIdentity } from './call-digest.js';
import type { RecordBody } from './execution-types.js';
import { JOURNAL_VERSION, type JournalRecord } from './journal-record.js';
import type { OccurrenceCounter, Scope } from './keys.js';
import { recordOp } from './replay.js';

export interface StepHost {
  readonly replay: ReadonlyMap<string, JournalRecord>;
  readonly journal: Journal;
  readonly counter: OccurrenceCounter;
  readonly maxValueBytes: number;
  /** Throws once the run ended; while it is pausing, a promise that settles when it may go on. */
  gate(): Promise<void> | undefined;
  assertLive(): void;
  /** An operation began (+1) or ended (-1): a pause waits for none to run. */
  inflight(delta: 1 | -1): void;
  /** The `journal.recorded` hook. */
  observe(record: JournalRecord, replayed: boolean): void;
  /** Fails the run at once. */
  diverge(error: WorkflowError): void;
  /** A store fault (a full disk, a damaged entry) met while performing: halts the segment, resumable. */
  fault(error: unknown): void;
}

/** A sandbox call's result, journaled for delivery at position `seq`. */
/** The sandbox call being handled: its journal key and whether the journal answered it. */
export interface Incoming {
  readonly key: string;
  readonly replayed: boolean;
}

export interface Delivered {
  readonly seq: number;
  /** The value's JSON text, as the reply carries it. */
  readonly text: string;
  /** Writes the result's journal record; call it once, right after the reply is written (see `#perform`). */
  readonly commit?: () => void;
}

export type Perform<T extends JsonValue> = (key: string, occurrence: number) => Promise<{ value: T; body: RecordBody }>;

export class Steps {
  readonly #host: StepHost;
  #identity: CallIdentity | undefined;
  #incoming: Incoming | undefined;
  /** The next delivery position, and the results journaled for sandbox calls awaiting their reply. */
  #nextSeq: number;
  readonly #delivered = new Map<string, Delivered>();

  constructor(host: StepHost, nextSeq: number) {
    this.#host = host;
    this.#nextSeq = nextSeq;
  }

  /** Runs `dispatch` (which reaches `step` synchronously) as the call `identity`. */
  dispatching<T>(identity: CallIdentity, incoming: Incoming | undefined, dispatch: () => T): T {
    this.#identity = identity;
    this.#incoming = incoming;
    try {
      return dispatch();
    } finally {
      this.#identity = undefined;
      this.#incoming = undefined;
    }
  }

  /** A registered function is identified by its name and input, whichever way it was called. */
  identify(identity: CallIdentity): void {
    this.#identity = identity;
  }

  /** The key the sandbox gave the call being dispatched. */
  get incomingKey(): string | undefined {
    return this.#incoming?.key;
  }

  takeSeq(): number {
    return this.#nextSeq++;
  }

  takeDelivered(key: string): Delivered | undefined {
    const delivered = this.#delivered.get(key);
    this.#delivered.delete(key);
    return delivered;
  }

  #diverge(error: WorkflowError): Promise<never> {
    this.#host.diverge(error);
    return Promise.reject(error);
  }

  step<T extends JsonValue>(scope: Scope, site: string, what: string, replay: (record: JournalRecord) => T, perform: Perform<T>): Promise<T> {
    const incoming = this.#incoming;
    const identity = this.#identity ?? { op: what, args: [] };
    this.#incoming = undefined;
    this.#identity = undefined;
    let key: string;
    let occurrence: number;
    let release = (): void => undefined;
    if (incoming) {
      key = incoming.key;
      occurrence = Number(key.slice(key.lastIndexOf('#') + 1));
    } else {
      try {
        const claim = this.#host.counter.claim(scope, site, what);
        ({ key, occurrence } = claim);
        release = () => claim.release();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const past = this.#host.replay.get(key);
    if (past === undefined || past.kind === 'log') {
      if (incoming?.replayed) {
        return this.#diverge(new WorkflowError('INTERNAL_ERROR', `replay diverged: the sandbox answered ${key} from the journal, but the host has no record for it`, { key }));
      }
      return this.#perform(key, occurrence, identity, incoming !== undefined, perform, release);
    }
    release();
    if (past.digest !== undefined && past.digest !== callDigest(identity)) {
      return this.#diverge(nondeterministicReplay({ site, key, journaled: past.call ?? recordOp(past), now: identity }));
    }
    if (past.kind === 'failure') return Promise.reject(new WorkflowError(past.error.code as WorkflowError['code'], past.error.message, past.error.details));
    try {
      const value = replay(past);
      this.#host.observe(past, true);
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Performs an operation and journals its result. A sandbox call's result is
   * journaled right after its reply is written (`Delivered.commit`, called by
   * the sandbox pool): the reply does not wait for the record, and the record
   * still precedes anything the script can do with the value, because the host
   * handles the sandbox's messages in order and writes the record before it
   * reads the next one. A crash between the two leaves the operation
   * unjournaled, as a crash during it would; the operation counts as running
   * (a pause waits for it) until its record is written.
   */
  async #perform<T extends JsonValue>(key: string, occurrence: number, identity: CallIdentity, fromSandbox: boolean, perform: Perform<T>, release: () => void): Promise<T> {
    try {
      const wait = this.#host.gate();
      if (wait !== undefined) await wait;
    } catch (error) {
      release();
      throw error;
    }
    this.#host.inflight(1);
    let ends = true;
    try {
      let performed: Awaited<ReturnType<Perform<T>>>;
      try {
        performed = await perform(key, occurrence);
      } catch (error) {
        // The host's store failed, not the operation: the segment halts instead of handing the fault to the script.
        if (isStoreFault(error)) this.#host.fault(error);
        throw error;
      }
      const { value, body } = performed;
      this.#host.assertLive();
      const at = new Date().toISOString();
      const journal = (seq?: number): JournalRecord => {
        const record = {
          v: JOURNAL_VERSION,
          key,
          at,
          op: identity.op,
          digest: callDigest(identity),
          call: callPreview(identity),
          ...(seq === undefined ? {} : { seq }),
          ...body,
        } as JournalRecord;
        this.#host.journal.append(record as unknown as Parameters<Journal['append']>[0]);
        return record;
      };
      if (!fromSandbox) {
        this.#host.observe(journal(), false);
        return value;
      }
      // What the script receives must be JSON within the RPC limit: checked before it is journaled.
      const encoded = encodeJson(value, { maxBytes: this.#host.maxValueBytes });
      if (!encoded.ok) throw new WorkflowError(encoded.failure.code, `The value of ${identity.op} ${encoded.failure.reason}`, { ...encoded.failure.details });
      const seq = this.#nextSeq++;
      try {
        this.#host.observe({ v: JOURNAL_VERSION, key, at, op: identity.op, seq, ...body } as JournalRecord, false);
      } catch (error) {
        // A throwing tap fails the operation in the script, after its result was journaled (the hook's contract).
        journal(seq);
        this.#delivered.set(key, { seq, text: encoded.text });
        throw error;
      }
      let committed = false;
      this.#delivered.set(key, {
        seq,
        text: encoded.text,
        commit: () => {
          if (committed) return;
          committed = true;
          try {
            journal(seq);
          } finally {
            this.#host.inflight(-1);
          }
        },
      });
      ends = false;
      return value;
    } finally {
      release();
      if (ends) this.#host.inflight(-1);
    }
  }
}
