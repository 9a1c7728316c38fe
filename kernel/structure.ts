/**
 * `parallel` and `pipeline`: keyed branches, each in its own structural scope.
 * Shared by the sandbox (script primitives) and the host (function context);
 * each side supplies how scopes are tracked and how errors are made.
 */
export interface StructureScopes {
  current(): readonly string[];
  run<T>(scope: readonly string[], fn: () => T): T;
  fail(message: string): Error;
}

type Task = () => unknown;
type Stage = (value: unknown, key: string) => unknown;

export class StructureRunner {
  /** Sibling structures with one name at a time, so journal keys never collide. */
  readonly #active = new Set<string>();
  private readonly scopes: StructureScopes;

  constructor(scopes: StructureScopes) {
    this.scopes = scopes;
  }

  #claim(kind: string, name: unknown): string {
    if (typeof name !== 'string' || name === '' || name.includes('/')) throw this.scopes.fail(`${kind} needs a non-empty name without "/"`);
    const id = `${this.scopes.current().join('/')}|${kind}:${name}`;
    if (this.#active.has(id)) throw this.scopes.fail(`${kind} "${name}" is already running in this scope`);
    this.#active.add(id);
    return id;
  }

  #entries(kind: string, value: unknown): [string, unknown][] {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw this.scopes.fail(`${kind} needs an object of keyed entries`);
    return Object.entries(value);
  }

  #branch<T>(segment: string, fn: () => T): T {
    return this.scopes.run([...this.scopes.current(), segment], fn);
  }

  /** Ordinary branch failures wait for the siblings to settle; then the first failure in key order is raised. */
  async #settle(entries: readonly (readonly [string, Promise<unknown>])[]): Promise<Record<string, unknown>> {
    const outcomes = await Promise.allSettled(entries.map(([, promise]) => promise));
    const values: Record<string, unknown> = {};
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected') throw outcome.reason;
      // Defined, never assigned: a key named `__proto__` is an ordinary key, not the object's prototype.
      Object.defineProperty(values, entries[index]![0], { value: outcome.value, enumerable: true, writable: true, configurable: true });
    }
    return values;
  }

  async parallel(name: unknown, tasks: unknown): Promise<Record<string, unknown>> {
    const entries = this.#entries('parallel', tasks);
    for (const [key, task] of entries) {
      if (typeof task !== 'function') throw this.scopes.fail(`parallel task "${key}" must be a function`);
    }
    const id = this.#claim('parallel', name);
    try {
      return await this.#settle(entries.map(([key, task]) => [key, this.#branch(`parallel:${name as string}/${key}`, async () => (task as Task)())] as const));
    } finally {
      this.#active.delete(id);
    }
  }

  async pipeline(name: unknown, items: unknown, stages: unknown): Promise<Record<string, unknown>> {
    const entries = this.#entries('pipeline', items);
    if (!Array.isArray(stages) || stages.length === 0 || !stages.every((stage) => typeof stage === 'function')) {
      throw this.scopes.fail('pipeline needs a non-empty array of stage functions');
    }
    const id = this.#claim('pipeline', name);
    const runItem = async (key: string, input: unknown) => {
      let value = input;
      for (const [index, stage] of (stages as Stage[]).entries()) {
        const current = value;
        value = await this.#branch(`pipeline:${name as string}/${key}/${index}`, async () => stage(current, key));
      }
      return value;
    };
    try {
      return await this.#settle(entries.map(([key, input]) => [key, runItem(key, input)] as const));
    } finally {
      this.#active.delete(id);
    }
  }
}
