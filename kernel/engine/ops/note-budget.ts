/**
 * Per-segment bounds on what `log()` and `phase()` may write: a script that
 * loops on them (even one that yields between calls) must not fill the disk.
 * Token buckets for count and bytes allow bursts and a steady rate; past
 * them the run fails with `INTERNAL_ERROR` and `details.reason: "log_limit"`.
 */
import { WorkflowError } from '../../errors.js';
import type { JsonValue } from '../../json.js';
import { LOG_LIMIT_BYTES } from '../run-log.js';

export interface NoteLimits {
  /** Burst and refill per second of notes (log, phase, agent.create). */
  readonly count: number;
  readonly countPerSecond: number;
  /** Burst and refill per second of bytes written for them. */
  readonly bytes: number;
  readonly bytesPerSecond: number;
}

export const DEFAULT_NOTE_LIMITS: NoteLimits = { count: 10_000, countPerSecond: 1_000, bytes: 8 * 1024 * 1024, bytesPerSecond: 1024 * 1024 };

class Bucket {
  #level: number;
  #at = performance.now();
  readonly #size: number;
  readonly #rate: number;

  constructor(size: number, rate: number) {
    this.#size = size;
    this.#rate = rate;
    this.#level = size;
  }

  take(amount: number): boolean {
    const now = performance.now();
    this.#level = Math.min(this.#size, this.#level + ((now - this.#at) / 1000) * this.#rate);
    this.#at = now;
    if (this.#level < amount) return false;
    this.#level -= amount;
    return true;
  }
}

export class NoteBudget {
  readonly #count: Bucket;
  readonly #bytes: Bucket;
  readonly #limits: NoteLimits;

  constructor(limits: NoteLimits = DEFAULT_NOTE_LIMITS) {
    this.#limits = limits;
    this.#count = new Bucket(limits.count, limits.countPerSecond);
    this.#bytes = new Bucket(limits.bytes, limits.bytesPerSecond);
  }

  /** Charges one note; throws once the script writes notes faster than the bounds allow. */
  admit(op: string, args: readonly JsonValue[]): void {
    const [first] = args;
    // What is written: a log message is cut to 4 KB; other notes are small.
    const bytes = typeof first === 'string' ? Math.min(Buffer.byteLength(first), LOG_LIMIT_BYTES) + 128 : 256;
    if (this.#count.take(1) && this.#bytes.take(bytes)) return;
    throw new WorkflowError(
      'INTERNAL_ERROR',
      `The workflow script writes ${op} notes faster than the run allows (bursts of ${this.#limits.count} notes or ${this.#limits.bytes} bytes, then ${this.#limits.countPerSecond} notes and ${this.#limits.bytesPerSecond} bytes per second)`,
      { reason: 'log_limit' },
    );
  }
}
