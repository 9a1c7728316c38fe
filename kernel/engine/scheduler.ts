/**
 * Admission of agents: a per-run limit (concurrency 1 to 16) and a
 * session-wide ceiling of 16 active agents, both first come, first served, so
 * agents start in the order the script called them.
 */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  acquire(signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
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

export const SESSION_AGENT_CEILING = 16;
