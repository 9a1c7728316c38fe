/**
 * Admission of agents: a per-run limit (concurrency 1 to 16) and a
 * session-wide ceiling of 16 active agents, both first come, first served, so
 * agents start in the order the script called them.
 *
 * An admitted agent holds one slot of each until its attempt ends, except
 * while it is `waiting_for_child`: then it hands both back, so the child it
 * waits for (queued behind it) can run, and takes them again in turn when the
 * child is done. Only agents that can make progress hold slots, so nesting at
 * any depth, with any limit, never deadlocks.
 */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  acquire(signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      // An aborted signal never fires again: a queued waiter would wait forever.
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
        return;
      }
      const grant = () => {
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          const next = this.#waiting.shift();
          if (next) next();
          else this.#free += 1;
        });
      };
      if (this.#free > 0 && this.#waiting.length === 0) {
        this.#free -= 1;
        grant();
        return;
      }
      const waiter = () => {
        signal.removeEventListener('abort', onAbort);
        grant();
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }
}

/** Takes a run slot, then a session slot; returns one release for both. */
export async function admit(run: Slots, session: Slots, signal: AbortSignal): Promise<() => void> {
  const releaseRun = await run.acquire(signal);
  try {
    const releaseSession = await session.acquire(signal);
    return () => {
      releaseSession();
      releaseRun();
    };
  } catch (error) {
    releaseRun();
    throw error;
  }
}

/** An admitted agent attempt's hold on its slots. */
export interface AgentLease {
  /** The agent waits for a child: its slots go to whoever is queued. */
  suspend(): void;
  /** The agent works again: takes its slots back in turn (rejects when `signal` aborts first). */
  resume(signal: AbortSignal): Promise<void>;
  /** The attempt ended: frees what it holds; idempotent. */
  release(): void;
}

/** Admits an agent attempt and returns its lease. */
export async function lease(run: Slots, session: Slots, signal: AbortSignal): Promise<AgentLease> {
  let held: (() => void) | undefined = await admit(run, session, signal);
  let state: 'held' | 'suspended' | 'acquiring' | 'ended' = 'held';
  // Each acquisition has its own number: one that finishes after a newer suspend or acquisition hands its slots straight back.
  let generation = 0;
  let pending: Promise<void> | undefined;
  const drop = () => {
    const release = held;
    held = undefined;
    release?.();
  };
  return {
    suspend() {
      if (state === 'held') drop();
      if (state === 'held' || state === 'acquiring') state = 'suspended';
    },
    resume(resumeSignal) {
      if (state === 'acquiring' && pending) return pending;
      if (state !== 'suspended') return Promise.resolve();
      state = 'acquiring';
      const mine = ++generation;
      pending = admit(run, session, resumeSignal).then(
        (release) => {
          if (state === 'acquiring' && generation === mine) {
            state = 'held';
            held = release;
          } else release();
        },
        (error: unknown) => {
          if (state === 'acquiring' && generation === mine) state = 'suspended';
          throw error;
        },
      );
      return pending;
    },
    release() {
      state = 'ended';
      drop();
    },
  };
}

export const SESSION_AGENT_CEILING = 16;
