/**
 * Decisions a run waits for (checkpoints): persisted as awaiting, the run in
 * `awaiting_input` while any is pending, the answer persisted before the
 * script sees it. A decision already persisted for the same journal key (the
 * host died before the journal caught up) is used again, never asked twice.
 */
import { WorkflowError } from '../errors.js';
import type { DecisionRequest } from '../contracts/primitive.js';
import type { RunRecord } from './run-record.js';

export interface DecisionHooks {
  /** A pending decision does not hold up a pause: waiting stops counting as in flight. */
  waitStarted(): void;
  waitEnded(): void;
  assertLive(): void;
}

export class Decisions {
  readonly #pending = new Map<string, (approved: boolean) => void>();
  readonly #record: RunRecord;
  readonly #signal: AbortSignal;
  readonly #hooks: DecisionHooks;

  constructor(record: RunRecord, signal: AbortSignal, hooks: DecisionHooks) {
    this.#record = record;
    this.#signal = signal;
    this.#hooks = hooks;
  }

  get pending(): number {
    return this.#pending.size;
  }

  respond(name: string, approved: boolean): boolean {
    const resolve = this.#pending.get(name);
    if (!resolve) return false;
    this.#pending.delete(name);
    resolve(approved);
    return true;
  }

  async await(key: string, request: DecisionRequest): Promise<boolean> {
    const record = this.#record;
    const known = Object.hasOwn(record.snapshot.checkpoints, request.name) ? record.snapshot.checkpoints[request.name] : undefined;
    if (known && known.key === key && known.state !== 'awaiting') return known.state === 'approved';
    if (this.#pending.has(request.name)) throw new WorkflowError('INVALID_METADATA', `checkpoint "${request.name}" is already awaiting a decision`);
    record.setCheckpoint(request.name, { state: 'awaiting', prompt: request.prompt, ...(request.context === undefined ? {} : { context: request.context }), key });
    if (record.snapshot.state === 'running') record.transition('awaiting_input');
    this.#hooks.waitStarted();
    let approved: boolean;
    try {
      approved = await new Promise<boolean>((resolve, reject) => {
        this.#pending.set(request.name, resolve);
        this.#signal.addEventListener('abort', () => reject(new WorkflowError('CANCELLED', 'the run stopped while awaiting a decision')), { once: true });
      });
    } finally {
      this.#hooks.waitEnded();
    }
    this.#hooks.assertLive();
    record.setCheckpoint(request.name, { ...record.snapshot.checkpoints[request.name]!, state: approved ? 'approved' : 'rejected' });
    if (this.#pending.size === 0 && record.snapshot.state === 'awaiting_input') record.transition('running');
    return approved;
  }
}
