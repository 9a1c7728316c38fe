/**
 * `parallel` and `pipeline`: keyed branches, each in its own structural scope.
 * Shared by the sandbox (script primitives) and the host (function context);
 * each side supplies how scopes are tracked and how errors are made.
 *
 * Keys: a record's own keys, or an array's indexes ("0", "1", ...); an array
 * gives an array back. Pipeline stages are a record of named stages (scope
 * `pipeline:<name>/<key>/<stage>`) or, as before, an array (scope segment
 * the stage's index). A call without a name (`parallel([...])`) is named
 * after its call site, `@<line>:<column>`, when the caller knows the site.
 * docs/runs.md lists the forms and their keys.
 */
export interface StructureScopes {
  current(): readonly string[];
  run<T>(scope: readonly string[], fn: () => T): T;
  fail(message: string): Error;
}

type Task = () => unknown;
type Stage = (value: unknown, key: string) => unknown;

const PARALLEL_FORM = "parallel('review', { api: () => agent('Review the API'), ui: () => agent('Review the UI') })";
const PIPELINE_FORM = "pipeline('files', { a: 'a.ts', b: 'b.ts' }, { read: (file) => agent(...), review: (text, key) => agent(...) })";

/** Arguments of a call that may leave out its name: the name, and the rest. */
function named(args: readonly unknown[], count: number, site: string | undefined): { name: unknown; rest: unknown[] } {
  if (typeof args[0] !== 'string' && site !== undefined && args.length <= count - 1) return { name: `@${site}`, rest: args.slice(0, count - 1) };
  return { name: args[0], rest: args.slice(1, count) };
}

export class StructureRunner {
  /** Sibling structures with one name at a time, so journal keys never collide. */
  readonly #active = new Set<string>();
  private readonly scopes: StructureScopes;

  constructor(scopes: StructureScopes) {
    this.scopes = scopes;
  }

  #checkName(kind: string, name: unknown, form: string): asserts name is string {
    if (typeof name !== 'string' || name === '' || name.includes('/')) throw this.scopes.fail(`${kind} needs a non-empty name without "/" first, as in ${form}`);
  }

  #claim(kind: string, name: string): string {
    const id = `${this.scopes.current().join('/')}|${kind}:${name}`;
    if (this.#active.has(id)) throw this.scopes.fail(`${kind} "${name}" is already running in this scope`);
    this.#active.add(id);
    return id;
  }

  /** The keyed entries of a record, or of an array by index. */
  #entries(kind: string, value: unknown, form: string): [string, unknown][] {
    if (Array.isArray(value)) return value.map((item, index) => [String(index), item]);
    if (typeof value !== 'object' || value === null) throw this.scopes.fail(`${kind} needs an object of keyed entries (or an array), as in ${form}`);
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

  /** The settled values, as an array when the entries came from one. */
  async #results(input: unknown, entries: readonly (readonly [string, Promise<unknown>])[]): Promise<unknown> {
    const values = await this.#settle(entries);
    return Array.isArray(input) ? entries.map(([key]) => values[key]) : values;
  }

  /** `parallel(name, tasks)`. */
  parallel(...args: unknown[]): Promise<unknown> {
    return this.parallelAt(undefined, args);
  }

  /** `site` names a call that gives no name. */
  async parallelAt(site: string | undefined, args: readonly unknown[]): Promise<unknown> {
    if (args.length > 2) throw this.scopes.fail(`parallel takes a name and one object of tasks, as in ${PARALLEL_FORM}`);
    const { name, rest } = named(args, 2, site);
    this.#checkName('parallel', name, PARALLEL_FORM);
    const [tasks] = rest;
    const entries = this.#entries('parallel', tasks, PARALLEL_FORM);
    for (const [key, task] of entries) {
      if (typeof task !== 'function') throw this.scopes.fail(`parallel task "${key}" must be a function that starts its work (${key}: () => agent(...)), not ${describe(task)}`);
    }
    const id = this.#claim('parallel', name);
    try {
      return await this.#results(tasks, entries.map(([key, task]) => [key, this.#branch(`parallel:${name}/${key}`, async () => (task as Task)())] as const));
    } finally {
      this.#active.delete(id);
    }
  }

  /** `pipeline(name, items, stages)`. */
  pipeline(...args: unknown[]): Promise<unknown> {
    return this.pipelineAt(undefined, args);
  }

  async pipelineAt(site: string | undefined, args: readonly unknown[]): Promise<unknown> {
    if (args.length > 3 || (args.length === 3 && typeof args[0] !== 'string' && typeof args[2] === 'function')) {
      throw this.scopes.fail(`pipeline takes a name, the items and one object of named stages, as in ${PIPELINE_FORM}`);
    }
    const { name, rest } = named(args, 3, site);
    this.#checkName('pipeline', name, PIPELINE_FORM);
    const [items, stages] = rest;
    const entries = this.#entries('pipeline', items, PIPELINE_FORM);
    const steps = this.#stages(stages);
    const id = this.#claim('pipeline', name);
    const runItem = async (key: string, input: unknown) => {
      let value = input;
      for (const [stageKey, stage] of steps) {
        const current = value;
        value = await this.#branch(`pipeline:${name}/${key}/${stageKey}`, async () => stage(current, key));
      }
      return value;
    };
    try {
      return await this.#results(items, entries.map(([key, input]) => [key, runItem(key, input)] as const));
    } finally {
      this.#active.delete(id);
    }
  }

  /** Named stages in key order, or an array's stages keyed by index. */
  #stages(stages: unknown): [string, Stage][] {
    const steps = typeof stages === 'object' && stages !== null ? Object.entries(stages) : [];
    const problem =
      steps.length === 0
        ? 'at least one stage'
        : steps.find(([, stage]) => typeof stage !== 'function') !== undefined
          ? 'stages that are functions'
          : steps.find(([key]) => key === '' || key.includes('/')) !== undefined
            ? 'stage names that are non-empty and hold no "/"'
            : undefined;
    if (problem !== undefined) throw this.scopes.fail(`pipeline needs ${problem}: an object of named stages, each (value, key) => next value, as in ${PIPELINE_FORM}`);
    return steps as [string, Stage][];
  }
}

function describe(value: unknown): string {
  if (value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function') return 'a promise (the work already started outside the branch)';
  return value === null ? 'null' : typeof value;
}
